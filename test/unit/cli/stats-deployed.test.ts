/**
 * `webhooks stats` against a deployed stack, through the CLI's own command and the management
 * library, with the AWS clients mocked: the table and `--json` come from CloudWatch's answers,
 * and a refused CloudWatch call is one line on stderr.
 */

import {
  CloudWatchClient,
  GetInsightRuleReportCommand,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { CloudWatchStats } from '../../../lambdas/adapters/stats/cloudwatch';
import { WebhookManagement } from '../../../lambdas/management';
import { runCli } from '../../support/cli-run';

const cw = mockClient(CloudWatchClient);
const sqs = mockClient(SQSClient);
const doc = mockClient(DynamoDBDocumentClient);

const region = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } };
const deployed = () =>
  new WebhookManagement({
    resources: {
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/Prod-Queue',
      retryQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/Prod-RetryQueue',
      dlqUrl: 'https://sqs.eu-west-1.amazonaws.com/1/Prod-DeadLetterQueue',
      connectionsTable: 'c',
      attemptsTable: 'a',
      parkedTable: 'p',
      secretPrefix: 'webhooks/Prod/',
      failingConnectionsRule: 'Prod-FailingConnections-1A2B',
      metricsStack: 'Prod',
    },
    clients: {
      sqs: new SQSClient(region),
      dynamodb: new DynamoDBClient(region),
    } as never,
    statsSource: (r, c) => new CloudWatchStats(r, { ...c, cloudwatch: new CloudWatchClient(region) }, 'Prod'),
  });

async function cli(argv: string[]) {
  return runCli(argv, { env: {}, open: async () => deployed() });
}

beforeEach(() => {
  cw.reset();
  sqs.reset();
  doc.reset();
  cw.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => ({
    MetricDataResults: (input.MetricDataQueries ?? []).map((q) => {
      const values: Record<string, number[]> = {
        delivered: [1_200],
        http_error: [30],
        age_ingress: [4],
        age_retry: [420],
        age_deadletter: [],
      };
      const v = values[q.Label ?? ''] ?? values[q.Id ?? ''] ?? [];
      return { Id: q.Id, Label: q.Label, Values: v, Timestamps: v.map(() => new Date()) };
    }),
  }));
  cw.on(GetInsightRuleReportCommand).resolves({
    Contributors: [{ Keys: ['con_failing'], ApproximateAggregateValue: 30, Datapoints: [] }],
  });
  sqs.on(GetQueueAttributesCommand).callsFake((input: { QueueUrl: string }) => ({
    Attributes: {
      ApproximateNumberOfMessages: input.QueueUrl.endsWith('-Queue') ? '2' : '0',
      ApproximateNumberOfMessagesDelayed: input.QueueUrl.endsWith('RetryQueue') ? '9' : '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    },
  }));
  doc.on(ScanCommand).resolves({ Count: 3 });
});

describe('webhooks stats on a deployed stack', () => {
  it("prints what CloudWatch counted, the rule's top connections, queue ages and the parked count", async () => {
    const { code, stdout, stderr } = await cli(['stats', '--since', '1h', '--top', '3']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Attempts \(CloudWatch\) from \S+ to \S+: 1230\n/);
    expect(stdout).toMatch(/delivered\s+1200\s+97\.6 %/);
    expect(stdout).toMatch(/CONNECTION\s+FAILED\ncon_failing\s+30\n/);
    expect(stdout).toMatch(/ingress queue\s+2 waiting, 0 delayed, 0 in flight, oldest 4 s\n/);
    expect(stdout).toMatch(/retry queue\s+0 waiting, 9 delayed, 0 in flight, oldest 7 min\n/);
    expect(stdout).toMatch(/dead-letter queue\s+0 messages, oldest unknown\n/);
    expect(stdout).toMatch(/parked\s+3 deliveries/);
    expect(cw.commandCalls(GetInsightRuleReportCommand)[0]!.args[0].input.MaxContributorCount).toBe(3);
  });

  it('prints the same figures as JSON', async () => {
    const { code, stdout } = await cli(['stats', '--json']);
    expect(code).toBe(0);
    const s = JSON.parse(stdout);
    expect(s).toMatchObject({
      source: 'cloudwatch',
      attempts: { total: 1230, byOutcome: { delivered: 1200, http_error: 30, timeout: 0 } },
      topFailing: [{ connectionId: 'con_failing', failed: 30 }],
      queues: { deadLetter: { oldestAgeSeconds: null }, retry: { delayed: 9, oldestAgeSeconds: 420 } },
      dlqDepth: 0,
      parked: 3,
    });
  });

  it("says in one line when CloudWatch refuses the operator's credentials", async () => {
    cw.on(GetInsightRuleReportCommand).rejects(
      Object.assign(
        new Error(
          'User: arn:aws:iam::1:user/ops is not authorized to perform: cloudwatch:GetInsightRuleReport',
        ),
        { name: 'AccessDenied' },
      ),
    );
    const { code, stdout, stderr } = await cli(['stats']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'webhooks: AWS refused the request: User: arn:aws:iam::1:user/ops is not authorized to perform: cloudwatch:GetInsightRuleReport\n',
    );
  });
});
