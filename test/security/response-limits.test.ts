/**
 * Adversarial suite, the response path: a receiver cannot hold an attempt past its deadline
 * nor grow the dispatcher's memory. At most SNIPPET_READ_BYTES (the kept 1 KiB plus the
 * redaction margin, core/constants.ts) of a response is read, the rest is never buffered, and one deadline covers the whole exchange (connect, TLS, headers, body).
 *
 * Deadlines here are 1-2 s instead of 30 s: the mechanism is the same, the suite stays fast.
 */

import type { LookupAddress } from 'node:dns';
import type { ServerResponse } from 'node:http';
import type { HttpsSender } from '../../lambdas/adapters/http/sender';
import { SNIPPET_READ_BYTES } from '../../lambdas/core/constants';
import { type Receiver, startReceiver } from '../support/receivers';
import { MiB, outbound, peakMemoryGrowth, senderFor, startTripwire } from './helpers';

const GiB = 1024 * MiB;
/** Memory an attempt may grow by while a receiver misbehaves: far below what buffering would take. */
const MEMORY_BOUND = 50 * MiB;

let receiver: Receiver;
let sender: HttpsSender;
/** Timers a misbehaving receiver runs; cleared after each test so nothing outlives it. */
const timers: NodeJS.Timeout[] = [];

beforeEach(async () => {
  receiver = await startReceiver();
  sender = senderFor({ allowedPorts: [receiver.port], allowLoopback: true });
});
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  await sender.close();
  await receiver.close();
});

/** Offers `total` bytes as fast as the client reads them, respecting backpressure; reports what it wrote. */
function offer(res: ServerResponse, total: number, progress: { written: number }): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = () => {
    while (progress.written < total && !res.destroyed) {
      progress.written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

/** Sends one byte every `everyMs` forever (until the client goes away or the test ends). */
function drip(write: () => boolean, isGone: () => boolean, everyMs = 50): void {
  const timer = setInterval(() => {
    if (isGone()) clearInterval(timer);
    else write();
  }, everyMs);
  timers.push(timer);
}

describe('a 1 GB response', () => {
  it.each([
    ['streamed', false],
    ['announced with Content-Length', true],
  ])(
    '(%s) is cut after the read window: memory stays bounded and the rest is never sent',
    async (_, announce) => {
      const progress = { written: 0 };
      receiver.behave((_req, res) => {
        res.writeHead(200, announce ? { 'content-length': String(GiB) } : {});
        offer(res, GiB, progress);
      });
      const { growth, result } = await peakMemoryGrowth(() =>
        sender.send(outbound(receiver.url, { timeoutMs: 2_000 })),
      );
      expect(result).toMatchObject({ kind: 'response', status: 200 });
      expect(result.kind === 'response' && Buffer.byteLength(result.snippet)).toBe(SNIPPET_READ_BYTES);
      expect(result.durationMs).toBeLessThan(2_000);
      expect(growth).toBeLessThan(MEMORY_BOUND);
      // Only socket buffers' worth left the receiver: the client stopped reading.
      expect(progress.written).toBeLessThan(16 * MiB);
    },
  );
});

describe('a dripping response', () => {
  it('that drips its body ends at the attempt deadline as a timeout, memory bounded', async () => {
    receiver.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      drip(
        () => res.write('.'),
        () => res.destroyed,
      );
    });
    const { growth, result } = await peakMemoryGrowth(() =>
      sender.send(outbound(receiver.url, { timeoutMs: 1_000 })),
    );
    expect(result).toMatchObject({ kind: 'timeout', error: 'no complete response within 1000 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(950);
    expect(result.durationMs).toBeLessThan(1_500);
    expect(growth).toBeLessThan(MEMORY_BOUND);
  });

  it('that drips its status line and headers ends at the attempt deadline as a timeout', async () => {
    receiver.behave((_req, res) => {
      const socket = res.socket!;
      socket.write('HTTP/1.1 200 OK\r\nX-Drip: ');
      drip(
        () => socket.write('a'),
        () => socket.destroyed,
      );
    });
    const result = await sender.send(outbound(receiver.url, { timeoutMs: 1_000 }));
    expect(result.kind).toBe('timeout');
    expect(result.durationMs).toBeGreaterThanOrEqual(950);
    expect(result.durationMs).toBeLessThan(1_500);
  });
});

describe('a stalled exchange', () => {
  it('with a receiver that never answers ends at the attempt deadline as a timeout', async () => {
    receiver.behave(() => undefined);
    const result = await sender.send(outbound(receiver.url, { timeoutMs: 1_000 }));
    expect(result.kind).toBe('timeout');
    expect(result.durationMs).toBeLessThan(1_500);
  });

  it('whose DNS answer comes only after the deadline ends at the attempt deadline', async () => {
    const slowDns = () =>
      new Promise<LookupAddress[]>((resolve) =>
        setTimeout(() => resolve([{ address: '127.0.0.1', family: 4 }]), 1_500),
      );
    const s = senderFor({ allowedPorts: [receiver.port], allowLoopback: true }, slowDns);
    try {
      const result = await s.send(
        outbound(`https://receiver.test:${receiver.port}/hooks`, { timeoutMs: 500 }),
      );
      expect(result.kind).toBe('timeout');
      expect(result.durationMs).toBeLessThan(1_000);
    } finally {
      await s.close();
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('with a listener that accepts TCP but never completes TLS ends at the attempt deadline', async () => {
    const silent = await startTripwire();
    const s = senderFor({ allowedPorts: [silent.port], allowLoopback: true }, undefined, 5_000);
    try {
      const result = await s.send(outbound(`https://127.0.0.1:${silent.port}/hooks`, { timeoutMs: 1_000 }));
      expect(result.kind).toBe('timeout');
      expect(result.durationMs).toBeLessThan(1_500);
      expect(silent.connections).toBe(1);
    } finally {
      await silent.close();
      await s.close();
    }
  });
});

describe('an endless header section', () => {
  it('is refused by the HTTP parser long before memory or the deadline matter', async () => {
    receiver.behave((_req, res) => {
      const socket = res.socket!;
      socket.write('HTTP/1.1 200 OK\r\n');
      const line = `X-Flood: ${'f'.repeat(1024)}\r\n`;
      const pump = () => {
        while (!socket.destroyed && socket.write(line)) {
          /* until backpressure */
        }
        if (!socket.destroyed) socket.once('drain', pump);
      };
      pump();
    });
    const { growth, result } = await peakMemoryGrowth(() =>
      sender.send(outbound(receiver.url, { timeoutMs: 2_000 })),
    );
    expect(result.kind).toBe('network');
    expect(result.kind === 'network' && result.error).toMatch(/header/i);
    expect(result.durationMs).toBeLessThan(2_000);
    expect(growth).toBeLessThan(MEMORY_BOUND);
  });
});

describe('a stalled event loop', () => {
  it('reads an answer that reached the socket before the deadline, though the loop ran the deadline late', async () => {
    // The receiver answers at once; then this process stalls past the deadline (a long GC, a
    // starved CPU), so the deadline's timer and the answer are both due when the loop wakes.
    // Timers run first in a turn of the loop: the answer, there before the deadline, must win.
    let answered = 0;
    receiver.behave((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such hook');
      answered = Date.now();
      setImmediate(() => {
        while (Date.now() < answered + 600) {
          /* stall the loop past the deadline */
        }
      });
    });
    const started = Date.now();
    const result = await sender.send(outbound(receiver.url, { timeoutMs: 300 }));
    // The stall must have covered the deadline, or the test proves nothing.
    expect(answered - started).toBeLessThan(300);
    expect(Date.now() - started).toBeGreaterThan(600);
    expect(result).toMatchObject({ kind: 'response', status: 404, snippet: 'no such hook' });
  });
});
