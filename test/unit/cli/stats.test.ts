import { statsText } from '../../../cli/commands/stats';
import { OUTCOMES } from '../../../lambdas/core/types';
import type { OperatorStats } from '../../../lambdas/management';

const none = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as OperatorStats['attempts']['byOutcome'];
const stats = (over: Partial<OperatorStats> = {}): OperatorStats => ({
  since: '2026-11-25T18:00:00.000Z',
  until: '2026-11-25T19:00:00.000Z',
  attempts: { total: 10, byOutcome: { ...none, delivered: 7, http_error: 2, timeout: 1 } },
  topFailing: [
    { connectionId: 'con_b', failed: 2, attempts: 5 },
    { connectionId: 'con_c', failed: 1, attempts: 1 },
  ],
  queues: {
    ingress: { visible: 3, delayed: 0, inFlight: 1 },
    retry: { visible: 0, delayed: 2, inFlight: 0 },
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
    expect(text).toMatch(/ingress queue\s+3 waiting, 0 delayed, 1 in flight/);
    expect(text).toMatch(/retry queue\s+0 waiting, 2 delayed, 0 in flight/);
    expect(text).toMatch(/dead-letter queue\s+1 message\n/);
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

  it('renders an untrusted connection id as text, not as terminal control', () => {
    const text = statsText(
      stats({ topFailing: [{ connectionId: 'con_\u001b[31mx', failed: 1, attempts: 1 }] }),
    );
    expect(text).not.toContain('\u001b');
  });
});
