import { decide, outcomeOf } from '../../../lambdas/core/outcome';
import type { AttemptResult } from '../../../lambdas/core/types';

const response = (status: number): AttemptResult => ({
  kind: 'response',
  status,
  snippet: '',
  durationMs: 5,
});
const timeout: AttemptResult = {
  kind: 'timeout',
  durationMs: 30_000,
  error: 'no complete response within 30000 ms',
};
const reset: AttemptResult = { kind: 'network', durationMs: 3, error: 'ECONNRESET: socket hang up' };
const tls: AttemptResult = { kind: 'network', durationMs: 3, error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' };
const blocked: AttemptResult = { kind: 'blocked', durationMs: 0, error: '10.0.0.5 is in the refused range' };

describe('outcome table', () => {
  it.each([
    [response(200), 'delivered'],
    [response(204), 'delivered'],
    [response(299), 'delivered'],
    [response(199), 'http_error'],
    [response(301), 'http_error'],
    [response(302), 'http_error'],
    [response(307), 'http_error'],
    [response(400), 'http_error'],
    [response(401), 'http_error'],
    [response(410), 'http_error'],
    [response(429), 'http_error'],
    [response(500), 'http_error'],
    [response(503), 'http_error'],
    [timeout, 'timeout'],
    [reset, 'network_error'],
    [tls, 'network_error'],
    [blocked, 'blocked'],
  ])('classifies %j as %s', (result, outcome) => {
    expect(outcomeOf(result)).toBe(outcome);
  });

  it.each([
    // position in chain, result, decision
    [0, response(200), { action: 'done', outcome: 'delivered' }],
    [3, response(201), { action: 'done', outcome: 'delivered' }],
    [0, response(503), { action: 'retry', outcome: 'http_error', delaySeconds: 1 }],
    [1, response(503), { action: 'retry', outcome: 'http_error', delaySeconds: 2 }],
    [2, response(503), { action: 'retry', outcome: 'http_error', delaySeconds: 4 }],
    [3, response(503), { action: 'dead-letter', outcome: 'http_error', reason: 'exhausted' }],
    [0, response(302), { action: 'retry', outcome: 'http_error', delaySeconds: 1 }],
    [0, response(404), { action: 'retry', outcome: 'http_error', delaySeconds: 1 }],
    [1, timeout, { action: 'retry', outcome: 'timeout', delaySeconds: 2 }],
    [3, timeout, { action: 'dead-letter', outcome: 'timeout', reason: 'exhausted' }],
    [2, reset, { action: 'retry', outcome: 'network_error', delaySeconds: 4 }],
    [0, tls, { action: 'retry', outcome: 'network_error', delaySeconds: 1 }],
    [0, blocked, { action: 'dead-letter', outcome: 'blocked', reason: 'blocked' }],
  ])('at chain position %i, %j → %j', (position, result, decision) => {
    expect(decide(result, position)).toEqual(decision);
  });

  it('retries after 1 s, 2 s, 4 s and dead-letters the 4th failure: 4 attempts in all', () => {
    const delays: number[] = [];
    let position = 0;
    for (;;) {
      const d = decide(response(500), position);
      if (d.action !== 'retry') {
        expect(d).toMatchObject({ action: 'dead-letter', reason: 'exhausted' });
        break;
      }
      delays.push(d.delaySeconds);
      position++;
    }
    expect(delays).toEqual([1, 2, 4]);
    expect(position + 1).toBe(4);
  });

  it('never retries or dead-letters a test send: its failure is reported, not called exhausted', () => {
    expect(decide(response(500), 0, false)).toEqual({ action: 'report', outcome: 'http_error' });
    expect(decide(blocked, 0, false)).toEqual({ action: 'report', outcome: 'blocked' });
    expect(decide(response(204), 0, false)).toEqual({ action: 'done', outcome: 'delivered' });
  });

  it.each([
    ['blocked', 'blocked'],
    ['connection_missing', 'rejected'],
    ['connection_disabled', 'rejected'],
    ['connection_invalid', 'rejected'],
  ] as const)(
    'dead-letters a delivery refused as %s with that reason, outcome %s, at any position',
    (reason, outcome) => {
      const refused: AttemptResult = { kind: 'refused', reason, durationMs: 0, error: 'no' };
      for (const position of [0, 1, 3]) {
        expect(decide(refused, position)).toEqual({ action: 'dead-letter', outcome, reason });
      }
      expect(decide(refused, 0, false)).toEqual({ action: 'report', outcome });
    },
  );
});
