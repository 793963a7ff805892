/**
 * Shared pieces of the adversarial egress suite. Everything listens on 127.0.0.1 only, and
 * every server, timer and connection pool is closed by the test that opened it.
 */

import { isIP, type Server, type Socket, createServer as tcpServer } from 'node:net';
import { HttpsSender, type Resolver } from '../../lambdas/adapters/http/sender';
import type { EgressPolicy } from '../../lambdas/core/egress';
import type { OutboundRequest } from '../../lambdas/core/types';
import { testPki } from '../support/pki';

/** The policy a deployed stack runs with: port 443 only, loopback refused. */
export const AWS_POLICY: EgressPolicy = Object.freeze({ allowedPorts: [443], allowLoopback: false });

/** A stand-in for DNS: answer `i` for lookup `i` (the last answer repeats); records every lookup. */
export type StubResolver = Resolver & { calls: string[] };

export function stubResolver(...answers: string[][]): StubResolver {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    const answer = answers[Math.min(calls.length, answers.length - 1)] ?? [];
    calls.push(hostname);
    return answer.map((address) => ({ address, family: isIP(address) }));
  };
  return Object.assign(resolver, { calls });
}

/** An HttpsSender that trusts the test CA: TLS is verified exactly as in AWS, against that CA. */
export function senderFor(egress: EgressPolicy, resolver?: Resolver, connectTimeoutMs?: number): HttpsSender {
  return new HttpsSender({ egress, resolver, ca: [testPki().caPem], connectTimeoutMs });
}

/** One delivery request as the dispatcher builds it. */
export function outbound(url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest {
  return {
    method: 'POST',
    url: new URL(url),
    headers: { 'Content-Type': 'application/json', 'X-Service-Event': 'user.identified' },
    body: '{"event":"user.identified"}',
    timeoutMs: 2_000,
    ...overrides,
  };
}

/**
 * A plain TCP listener that counts connections and never says a word (no TLS handshake).
 * A destination that must not be reached points here: any connection at all is counted.
 */
export interface Tripwire {
  port: number;
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTripwire(): Promise<Tripwire> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = tcpServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Samples heap plus off-heap buffer memory while `run` runs and returns the largest growth
 * over the starting value, in bytes, with `run`'s result.
 */
export async function peakMemoryGrowth<T>(run: () => Promise<T>): Promise<{ growth: number; result: T }> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const start = used();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, used());
  }, 10);
  try {
    const result = await run();
    peak = Math.max(peak, used());
    return { growth: peak - start, result };
  } finally {
    clearInterval(timer);
  }
}

export const MiB = 1024 * 1024;
