import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { CliError } from '../../../cli/errors';
import { localOptions, nodeDefaultCas, openTarget } from '../../../cli/target';
import { CloudWatchStats } from '../../../lambdas/adapters/stats/cloudwatch';
import { StoreStats } from '../../../lambdas/adapters/stats/stores';
import type { LocalState } from '../../../local/state';
import { DEPLOYED_OUTPUTS, describedStack, localStateFixture } from '../../support/fixtures';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wh-target-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function state(extra: Partial<LocalState> = {}): LocalState {
  const caFile = join(dir, 'local-ca.pem');
  writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
  return localStateFixture({ caFile, ...extra });
}

describe('local mode as a target', () => {
  it('tells the management API the connection cache time local mode runs with', () => {
    expect(localOptions(state({ connectionCacheTtlMs: 5_000 }), {}).connectionCacheTtlMs).toBe(5_000);
  });

  it("takes local mode's default (1 s) from the state file of a local mode that did not write it", () => {
    expect(localOptions(state(), {}).connectionCacheTtlMs).toBe(1_000);
  });
});

describe("Node's default CAs (what the CLI trusts besides local mode's CA)", () => {
  it('takes tls.getCACertificates where Node has it (22.15 and later)', () => {
    const source = { rootCertificates: ['root'], getCACertificates: () => ['default-set'] };
    expect(nodeDefaultCas({ NODE_EXTRA_CA_CERTS: '/nowhere' }, source)).toEqual(['default-set']);
  });

  it("reads Node 20's bundled roots and the NODE_EXTRA_CA_CERTS file where it has no getCACertificates", () => {
    const extra = join(dir, 'extra.pem');
    writeFileSync(extra, 'EXTRA PEM');
    expect(nodeDefaultCas({}, { rootCertificates })).toEqual(rootCertificates);
    expect(nodeDefaultCas({ NODE_EXTRA_CA_CERTS: extra }, { rootCertificates: ['root'] })).toEqual([
      'root',
      'EXTRA PEM',
    ]);
    expect(() =>
      nodeDefaultCas({ NODE_EXTRA_CA_CERTS: join(dir, 'absent.pem') }, { rootCertificates }),
    ).toThrow(CliError);
  });

  it('puts them before the CA local mode trusts', () => {
    const cas = localOptions(state(), {}).ca as string[];
    expect(cas.slice(0, -1)).toEqual(nodeDefaultCas({}));
    expect(cas.at(-1)).toContain('BEGIN CERTIFICATE');
  });
});

describe('where `stats` reads its figures', () => {
  const cfn = mockClient(CloudFormationClient);
  afterAll(() => cfn.restore());

  it('local mode: the stores, with queue ages from the emulator', () => {
    const options = localOptions(state(), {});
    const source = options.statsSource!(options.resources, {
      sqs: new SQSClient({ region: 'us-east-1' }),
      doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
    });
    expect(source).toBeInstanceOf(StoreStats);
  });

  it("a deployed stack: CloudWatch, found by the stack's outputs", async () => {
    cfn.on(DescribeStacksCommand, { StackName: 'Prod' }).resolves(
      describedStack({
        ...DEPLOYED_OUTPUTS,
        FailingConnectionsRuleName: 'Prod-FailingConnections-1A2B',
        MetricsStackName: 'Prod',
      }),
    );
    const env: NodeJS.ProcessEnv = {};
    const management = await openTarget(
      { local: false, json: false, stack: 'Prod', region: 'eu-west-1' },
      env,
    );
    expect(management.stats).toBeInstanceOf(CloudWatchStats);
  });
});
