import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  meanPhases,
  OTHER_AWS_OP,
  operationOf,
  phasesOf,
  RECEIVER_OP,
  recordSpans,
} from '../../../bench/billed/phases';

describe("where a billed batch's time goes", () => {
  it('names an SDK call by its X-Amz-Target operation, and a request without one a receiver request', () => {
    expect(operationOf('DynamoDB_20120810.PutItem')).toBe('PutItem');
    expect(operationOf('TrentService.Decrypt')).toBe('Decrypt');
    expect(operationOf(undefined)).toBe(RECEIVER_OP);
    expect(operationOf('')).toBe(RECEIVER_OP);
    expect(
      operationOf(undefined, 'AWS4-HMAC-SHA256 Credential=AKID/20261126/us-east-1/sns/aws4_request'),
    ).toBe(OTHER_AWS_OP);
    expect(operationOf(undefined, 'Bearer tok_1')).toBe(RECEIVER_OP);
  });

  it('splits a batch around its longest receiver request, and counts the SDK calls', () => {
    const phases = phasesOf(
      [
        { op: 'Query', startMs: 1, endMs: 9 },
        { op: RECEIVER_OP, startMs: 10, endMs: 60 },
        { op: RECEIVER_OP, startMs: 20, endMs: 540 }, // the slowest: drawn 500 ms
        { op: 'PutItem', startMs: 61, endMs: 65 },
        { op: 'PutItem', startMs: 541, endMs: 551 },
        { op: RECEIVER_OP, startMs: 30 }, // no answer: not counted
      ],
      560,
      500,
    );
    expect(phases).toEqual({
      toFirstRequestMs: 10,
      toSlowestRequestMs: 20,
      slowestOverDrawnMs: 20,
      afterSlowestMs: 20,
      calls: { Query: { count: 1, ms: 8 }, PutItem: { count: 2, ms: 14 } },
    });
    expect(phasesOf([{ op: 'PutItem', startMs: 0, endMs: 3 }], 5, 1)).toBeUndefined();
  });

  it('averages the phases per batch and the calls per operation', () => {
    const one = { toFirstRequestMs: 10, toSlowestRequestMs: 20, slowestOverDrawnMs: 30, afterSlowestMs: 40 };
    const figures = meanPhases([
      { ...one, calls: { PutItem: { count: 2, ms: 10 } } },
      {
        ...one,
        toSlowestRequestMs: 40,
        calls: { PutItem: { count: 1, ms: 20 }, GetItem: { count: 1, ms: 4 } },
      },
    ]);
    expect(figures).toEqual({
      batches: 2,
      toFirstRequestMs: 10,
      toSlowestRequestMs: 30,
      slowestOverDrawnMs: 30,
      afterSlowestMs: 40,
      calls: { GetItem: { perBatch: 0.5, meanMs: 4 }, PutItem: { perBatch: 1.5, meanMs: 10 } },
    });
    expect(meanPhases([])).toBeUndefined();
  });

  it("notes the HTTP client's requests between begin and end, and none outside", async () => {
    const server = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    const get = (headers: Record<string, string> = {}) =>
      new Promise<void>((resolve, reject) => {
        request(url, { headers }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end();
      });
    try {
      const spans = recordSpans();
      await get();
      spans.begin();
      await get({ 'X-Amz-Target': 'DynamoDB_20120810.GetItem' });
      await get();
      const noted = spans.end();
      await get();
      expect(noted.map((s) => s.op)).toEqual(['GetItem', RECEIVER_OP]);
      for (const s of noted) expect(s.endMs).toBeGreaterThanOrEqual(s.startMs);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
