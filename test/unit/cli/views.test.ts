import { table } from '../../../cli/format';
import {
  attemptColumns,
  connectionBlock,
  connectionJson,
  failureAdvice,
  outcomeDetail,
} from '../../../cli/views';
import { connectionView } from '../../../lambdas/api/views';
import type { Connection } from '../../../lambdas/core/types';
import { attemptAt } from '../../support/fixtures';

const suggest = (command: string) => `npx webhooks --local ${command}`;
const failed = (error: string) => ({
  outcome: 'network_error' as const,
  error,
  target: 'https://localhost:8443/hooks',
});

describe('what a failed attempt tells the operator', () => {
  // Node's generic CA hint is dropped where the error is made (the sender; test/integration/http-sender.test.ts).
  it('says network error once: the error itself, without the outcome name before it', () => {
    const detail = outcomeDetail({
      ...failed('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate'),
      durationMs: 3,
    });
    expect(detail).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
  });

  it.each([
    'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
    'SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate',
  ])('points an untrusted certificate (%s) at certs issue in local mode', (error) => {
    const advice = failureAdvice(failed(error), { local: true, suggest });
    expect(advice).toContain('not signed by a CA the dispatcher trusts');
    expect(advice).toContain('npx webhooks --local certs issue --out ./certs');
  });

  it('tells a deployed stack to use a public CA, and names a wrong host name or an expired certificate', () => {
    expect(failureAdvice(failed('SELF_SIGNED_CERT_IN_CHAIN: x'), { local: false, suggest })).toContain(
      'public CA',
    );
    expect(failureAdvice(failed('ERR_TLS_CERT_ALTNAME_INVALID: x'), { local: true, suggest })).toContain(
      'not valid for this host name',
    );
    expect(failureAdvice(failed('CERT_HAS_EXPIRED: x'), { local: true, suggest })).toContain('has expired');
  });

  it('says nothing listens when the connection is refused, and nothing when there is nothing to add', () => {
    expect(
      failureAdvice(failed('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8443'), { local: true, suggest }),
    ).toBe('nothing accepts connections at localhost:8443: is the receiver running, on that port?');
    expect(failureAdvice(failed('ECONNRESET: socket hang up'), { local: true, suggest })).toBeUndefined();
    expect(
      failureAdvice({ outcome: 'http_error', error: 'x', target: 'https://a' }, { local: true, suggest }),
    ).toBeUndefined();
  });
});

describe('what a connection block says about delivery', () => {
  const base = {
    connectionId: 'con_1',
    applicationId: 'app_1',
    type: 'webhook',
    name: 'CRM',
    url: 'https://hooks.example.com/x',
    method: 'POST',
    headers: {},
    secretArn: 'arn:aws:secretsmanager:us-east-1:1:secret:x',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  } as unknown as Connection;
  const now = new Date('2026-11-22T10:05:00.000Z');
  const enabledLine = (c: Connection) =>
    connectionBlock(c, now)
      .split('\n')
      .find((l) => /^\s*enabled\s/.test(l));

  it('says a connection disabled by health parks its new events, as its health line does', () => {
    const c = { ...base, enabled: false, health: { state: 'disabled', consecutiveFailures: 2, version: 3 } };
    expect(enabledLine(c as Connection)).toMatch(
      /no \(by health: new events are parked until it is enabled\)/,
    );
    expect(connectionBlock(c as Connection, now)).toContain('new events are parked, not sent');
  });

  /** A failing endpoint with a recovery check stored. */
  const DOWN_WITH_CHECK = {
    state: 'failing',
    consecutiveFailures: 3,
    version: 4,
    downSince: '2026-11-22T10:00:00.000Z',
    nextCheckAt: '2026-11-22T10:20:00.000Z',
  };

  it('says when the endpoint went down and when the next recovery check is', () => {
    const health = DOWN_WITH_CHECK;
    const block = connectionBlock({ ...base, enabled: true, health } as Connection, now);
    expect(block).toContain(
      'Endpoint down since 2026-11-22T10:00:00.000Z (5m ago), next check at 2026-11-22T10:20:00.000Z (in 15m)',
    );
    const ended = { ...health, nextCheckAt: undefined };
    expect(connectionBlock({ ...base, enabled: true, health: ended } as Connection, now)).toContain(
      'no automatic check is scheduled',
    );
    const optedOut = { ...base, enabled: true, recoveryProbes: false } as Connection;
    expect(connectionBlock(optedOut, now)).toMatch(/recovery checks\s+off for this connection/);
    expect(connectionBlock({ ...base, enabled: true }, now)).not.toMatch(/recovery|next check/);
  });

  it('never shows a check stored before the connection’s own recovery checks were turned off', () => {
    const health = DOWN_WITH_CHECK;
    const off = { ...base, enabled: true, recoveryProbes: false, health } as Connection;
    const block = connectionBlock(off, now);
    expect(block).not.toContain('next check');
    expect(block).toContain(
      'Endpoint down since 2026-11-22T10:00:00.000Z (5m ago). Automatic recovery is off for this connection: parked deliveries wait for Recover.',
    );
  });

  it('shows the attempt shards of a raised connection only', () => {
    const raised = {
      ...base,
      enabled: true,
      attemptShards: [
        { count: 1, from: '1970-01-01T00:00:00.000Z' },
        { count: 8, from: '2026-11-22T10:01:00.000Z' },
      ],
    };
    expect(connectionBlock(raised, now)).toMatch(/attempt shards\s+8$/m);
    expect(connectionBlock({ ...base, enabled: true }, now)).not.toContain('attempt shards');
  });

  it('says a connection disabled by hand gets no new events at all', () => {
    expect(enabledLine({ ...base, enabled: false })).toMatch(/no \(new events are not delivered to it\)/);
    expect(enabledLine({ ...base, enabled: true })).toMatch(/enabled\s+yes$/);
  });
});

describe('a connection of the kms secret store in listings', () => {
  const sealed = {
    connectionId: 'con_a',
    applicationId: 'app_1',
    type: 'webhook',
    name: 'CRM',
    url: 'https://example.com/hooks',
    method: 'POST',
    headers: { Authorization: 'Bearer t0ken-value' },
    enabled: true,
    secretArn: 'arn:aws:kms:us-east-1:1:key/k',
    secretVersion: 'v1',
    secretCiphertext: 'AQICAHsealedsecretbytes==',
    createdAt: '2026-11-22T00:00:00.000Z',
    updatedAt: '2026-11-22T00:00:00.000Z',
  } as Connection;

  it('shows neither the sealed secret (CLI --json) nor it or the key (API) ', () => {
    const cli = JSON.stringify(connectionJson(sealed));
    expect(cli).not.toContain('AQICAHsealed');
    expect(cli).not.toContain('t0ken-value');
    expect(cli).toContain('"secretVersion":"v1"');
    const api = JSON.stringify(connectionView(sealed));
    expect(api).not.toContain('AQICAHsealed');
    expect(api).not.toContain('arn:aws:kms');
  });
});

describe('attempts tail', () => {
  /** Where `text` starts on a line (left-aligned columns) and where it ends (right-aligned ones). */
  const startOf = (line: string, text: string) => line.indexOf(text);
  const endOf = (line: string, text: string) => line.indexOf(text) + text.length;

  it('prints every poll in the columns of the first, however wide the new rows are', () => {
    const now = new Date('2026-11-25T12:00:00.000Z');
    const at = now.getTime() - 5_000;
    const short = attemptAt('con_1', 'app_1', at, { attempt: 1, durationMs: 7, statusCode: 200 });
    const wide = attemptAt('con_1', 'app_1', at - 3_600_000, {
      attempt: 12,
      outcome: 'network_error',
      statusCode: undefined,
      durationMs: 30_000,
      final: false,
      nextAttemptAt: new Date(at - 3_600_000 + 4_000).toISOString(),
      error: 'ECONNRESET',
    });
    const lines = (columns: ReturnType<typeof attemptColumns>) => {
      const [header, first] = table([short], columns).split('\n');
      const [, second] = table([wide], columns).split('\n');
      return { header: header!, first: first!, second: second! };
    };
    const aligned = ({ header, first, second }: ReturnType<typeof lines>) =>
      startOf(first, 'delivered') === startOf(header, 'OUTCOME') &&
      startOf(second, 'network_error') === startOf(header, 'OUTCOME') &&
      endOf(first, '7 ms') === endOf(header, 'LATENCY') &&
      endOf(second, '30000 ms') === endOf(header, 'LATENCY') &&
      startOf(first, 'done') === startOf(header, 'NEXT') &&
      startOf(second, 'retry after 4s') === startOf(header, 'NEXT') &&
      startOf(second, 'ECONNRESET') === startOf(header, 'RESPONSE / ERROR');
    expect(aligned(lines(attemptColumns(now, { delivery: true, fixedWidths: true })))).toBe(true);
    // Without the fixed widths the same two polls do not line up: the test can fail.
    expect(aligned(lines(attemptColumns(now, { delivery: true })))).toBe(false);
  });
});
