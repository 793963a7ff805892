/**
 * The TLS levers of the billed benchmark, measured inside the capped container (so the wall
 * times are those of Lambda's CPU share; the CPU µs are the same at any share): a request on
 * a new TLS connection with a full handshake, on a new connection that resumes a cached TLS
 * session, and on a kept-alive connection. Node's https Agent with the sender's TLS options
 * (lambdas/adapters/http/pool.ts), one request per origin in each round, `concurrency` at once.
 */

import { Agent, request } from 'node:https';

export interface HandshakeOptions {
  ports: number[];
  rounds: number;
  concurrency: number;
}

export interface HandshakeCase {
  requests: number;
  cpuMicrosPerRequest: number;
  wallMsPerRequest: number;
}

export interface HandshakeFigures {
  origins: number;
  /** New connection, no session cache: every handshake full. */
  fullHandshake: HandshakeCase;
  /** New connection resuming the origin's cached TLS session (maxCachedSessions ≥ origins). */
  resumed: HandshakeCase;
  /** The request on a kept-alive connection. */
  reused: HandshakeCase;
}

const BODY = JSON.stringify({
  type: 'user.identified',
  data: { user: { id: 'usr_handshake', pad: 'x'.repeat(400) } },
});

function post(agent: Agent, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

async function round(agent: Agent, ports: readonly number[], concurrency: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < ports.length) await post(agent, ports[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

type Case = { agent: Agent; cpuMicros: number; wallMs: number };
/** Kept-alive sockets idle through the other cases' rounds: 40 % of receivers close them after 5 s. */
const keepsSockets = (agent: Agent) => (agent.options as { keepAlive?: boolean }).keepAlive === true;

/** One round of every case in turn, `rounds` times, so that the machine's drift falls on all alike. */
async function measureInterleaved(agents: Agent[], options: HandshakeOptions): Promise<HandshakeCase[]> {
  const cases: Case[] = agents.map((agent) => ({ agent, cpuMicros: 0, wallMs: 0 }));
  // One untimed round each: JIT, and the session cache or the kept-alive sockets to measure.
  for (const c of cases) await round(c.agent, options.ports, options.concurrency);
  for (let r = 0; r < options.rounds; r++) {
    for (const c of cases) {
      // Reopened untimed first: else the figure is the share of sockets the receivers closed.
      if (keepsSockets(c.agent)) await round(c.agent, options.ports, options.concurrency);
      const cpu = process.cpuUsage();
      const started = performance.now();
      await round(c.agent, options.ports, options.concurrency);
      const used = process.cpuUsage(cpu);
      c.cpuMicros += used.user + used.system;
      c.wallMs += performance.now() - started;
    }
  }
  const requests = options.rounds * options.ports.length;
  for (const c of cases) c.agent.destroy();
  return cases.map((c) => ({
    requests,
    cpuMicrosPerRequest: Math.round(c.cpuMicros / requests),
    wallMsPerRequest: Math.round((c.wallMs / requests) * 100) / 100,
  }));
}

const TLS = { rejectUnauthorized: true, minVersion: 'TLSv1.2' as const };

export async function measureHandshakes(options: HandshakeOptions): Promise<HandshakeFigures> {
  const n = options.ports.length;
  const [fullHandshake, resumed, reused] = await measureInterleaved(
    [
      new Agent({ ...TLS, keepAlive: false, maxCachedSessions: 0 }),
      new Agent({ ...TLS, keepAlive: false, maxCachedSessions: n }),
      new Agent({ ...TLS, keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: n }),
    ],
    options,
  );
  return { origins: n, fullHandshake: fullHandshake!, resumed: resumed!, reused: reused! };
}
