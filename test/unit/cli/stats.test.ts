import { duration, statsText } from '../../../cli/commands/stats';
import { OUTCOMES } from '../../../lambdas/core/types';
import type { OperatorStats, WebhookManagement } from '../../../lambdas/management';
import { isSince, SINCE_RULE, windowProblem } from '../../../lambdas/management/since';
import { runCli } from '../../support/cli-run';

const none = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as OperatorStats['attempts']['byOutcome'];
const stats = (over: Partial<OperatorStats> = {}): OperatorStats => ({
  source: 'stores',
  since: '2026-11-25T18:00:00.000Z',
  until: '2026-11-25T19:00:00.000Z',
  attempts: { total: 10, byOutcome: { ...none, delivered: 7, http_error: 2, timeout: 1 } },
  topFailing: [
    { connectionId: 'con_b', failed: 2, attempts: 5 },
    { connectionId: 'con_c', failed: 1, attempts: 1 },
  ],
  queues: {
    ingress: { visible: 3, delayed: 0, inFlight: 1, oldestAgeSeconds: 42.7 },
    retry: { visible: 0, delayed: 2, inFlight: 0, oldestAgeSeconds: 185 },
    deadLetter: { visible: 1, delayed: 0, inFlight: 0, oldestAgeSeconds: 3 * 86_400 + 5 },
  },
  dlqDepth: 1,
  parked: 4,
  ...over,
});

describe('webhooks stats, as people read it', () => {
  it('shows the window, each outcome that happened with its share, the failing connections and the queues', () => {
    const lines = statsText(stats()).split('\n');
    expect(lines[0]).toBe('Attempts requested from 2026-11-25T18:00:00.000Z to 2026-11-25T19:00:00.000Z: 10');
    expect(lines[1]).toMatch(/^OUTCOME\s+ATTEMPTS\s+SHARE$/);
    expect(lines.slice(2, 5).map((l) => l.split(/\s+/).join(' '))).toEqual([
      'delivered 7 70 %',
      'http_error 2 20 %',
      'timeout 1 10 %',
    ]);
    const text = lines.join('\n');
    expect(text).not.toMatch(/network_error/); // outcomes that did not happen are left out
    expect(text).toMatch(
      /Most failing connections \(2 connections\):\nCONNECTION\s+FAILED\s+OF\ncon_b\s+2\s+5\ncon_c\s+1\s+1/,
    );
    expect(text).toMatch(/ingress queue\s+3 waiting, 0 delayed, 1 in flight, oldest 42 s\n/);
    expect(text).toMatch(/retry queue\s+0 waiting, 2 delayed, 0 in flight, oldest 3 min\n/);
    expect(text).toMatch(/dead-letter queue\s+1 message, oldest 3 d\n/);
    expect(text).toMatch(/parked\s+4 deliveries$/);
  });

  it('says when nothing failed or nothing was attempted, and leaves out a parked count it does not have', () => {
    const text = statsText(
      stats({ attempts: { total: 0, byOutcome: none }, topFailing: [], parked: undefined }),
    );
    expect(text).toContain(': 0\n\nNo connection failed an attempt in the window.');
    expect(text).not.toContain('OUTCOME');
    expect(text).not.toMatch(/parked/);
  });

  it('prints the CloudWatch form with the same renderer: failures without totals, ages it could not read', () => {
    const text = statsText(
      stats({
        source: 'cloudwatch',
        topFailing: [{ connectionId: 'con_b', failed: 9 }],
        queues: {
          ingress: { visible: 0, delayed: 0, inFlight: 0, oldestAgeSeconds: 0 },
          retry: { visible: 0, delayed: 0, inFlight: 0, oldestAgeSeconds: null },
          deadLetter: { visible: 0, delayed: 0, inFlight: 0, oldestAgeSeconds: 0 },
        },
        dlqDepth: 0,
      }),
    );
    expect(text.split('\n')[0]).toBe(
      'Attempts (CloudWatch) from 2026-11-25T18:00:00.000Z to 2026-11-25T19:00:00.000Z: 10',
    );
    expect(text).toMatch(/CONNECTION\s+FAILED\ncon_b\s+9\n/); // no OF column
    expect(text).toMatch(/ingress queue\s+0 waiting, 0 delayed, 0 in flight\n/); // empty: no age
    expect(text).toMatch(/retry queue\s+0 waiting, 0 delayed, 0 in flight, oldest unknown\n/);
    expect(text).toMatch(/dead-letter queue\s+0 messages\n/);
  });

  it('writes ages in the largest unit that fits, rounded down', () => {
    expect([0, 59.9, 119, 120, 7_199, 7_200, 172_799, 172_800].map(duration)).toEqual([
      '0 s',
      '59 s',
      '119 s',
      '2 min',
      '119 min',
      '2 h',
      '47 h',
      '2 d',
    ]);
  });

  it('renders an untrusted connection id as text, not as terminal control', () => {
    const text = statsText(
      stats({ topFailing: [{ connectionId: 'con_\u001b[31mx', failed: 1, attempts: 1 }] }),
    );
    expect(text).not.toContain('\u001b');
  });
});

describe('webhooks stats --since, refused as the API refuses it', () => {
  async function statsSince(since: string) {
    let read = false;
    const fake = {
      stats: {
        read: async () => {
          read = true;
          return stats();
        },
      },
    } as unknown as WebhookManagement;
    const result = await runCli(['--local', 'stats', '--since', since], { open: async () => fake });
    return { ...result, read };
  }

  it('refuses a start in the future, in the words of the API stats route, and reads nothing', async () => {
    const result = await statsSince('2999-01-01T00:00:00Z');
    expect(result.code).toBe(2);
    expect(result.read).toBe(false);
    expect(result.stdout).toBe('');
    const problem = windowProblem(Date.parse('2999-01-01T00:00:00Z'), Date.now());
    expect(problem).toBeDefined();
    const said =
      /^webhooks: --since: (must be before until) \(([^;]+); until is now when not given\); got "2999-01-01T00:00:00Z"; see: npx webhooks stats --help\n$/.exec(
        result.stderr,
      );
    expect(said).not.toBeNull();
    expect(problem!.startsWith(said![1]!)).toBe(true);
  });

  it('refuses a duration of more than 6 digits, as the API does', async () => {
    const result = await statsSince('99999999d');
    expect(result.code).toBe(2);
    expect(result.read).toBe(false);
    expect(isSince('99999999d')).toBe(false);
    expect(result.stderr).toBe(
      `webhooks: --since: ${SINCE_RULE}; got "99999999d"; see: npx webhooks stats --help\n`,
    );
  });

  it('takes a week back, as the API now does too', async () => {
    const result = await statsSince('1w');
    expect(result.code).toBe(0);
    expect(result.read).toBe(true);
    expect(isSince('1w')).toBe(true);
  });
});
