/**
 * A share of the billed benchmark's receivers, in a process apart from the capped containers:
 * one HTTPS server per origin, each with the keep-alive timeout it is given (BILLED_KEEP_ALIVE_S,
 * a JSON array), answering after the latency its user id carries (`usr_b_<n>_<ms>`). Prints
 * `{"ready":true,"ports":[…]}`, then `{"stats":…}` every second; exits when stdin closes.
 */

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { LOCAL_HOST } from '../../local/listen';
import { exitWithParent } from '../../test/support/child';
import { OK_BODY } from '../../test/support/receiver-pages';

export interface ReceiversReady {
  readonly ready: true;
  readonly ports: number[];
}

export interface ReceiversStats {
  readonly stats: { handshakes: number; resumed: number; requests: number };
}

const DELAY = /"id":"usr_b_\d+_(\d+)"/;

async function main(): Promise<void> {
  const keepAlive = JSON.parse(process.env.BILLED_KEEP_ALIVE_S ?? '[]') as number[];
  const tls = {
    cert: readFileSync(process.env.BENCH_TLS_CERT_FILE!, 'utf8'),
    key: readFileSync(process.env.BENCH_TLS_KEY_FILE!, 'utf8'),
  };
  const stats = { handshakes: 0, resumed: 0, requests: 0 };
  const servers: Server[] = [];
  for (const seconds of keepAlive) {
    const server = createServer({ ...tls, keepAliveTimeout: seconds * 1000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        stats.requests++;
        const ms = Number(DELAY.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? 0);
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(OK_BODY), ms);
      });
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      stats.handshakes++;
      if (socket.isSessionReused()) stats.resumed++;
    });
    await new Promise<void>((resolve) => server.listen(0, LOCAL_HOST, resolve));
    servers.push(server);
  }
  const timer = setInterval(() => process.stdout.write(`${JSON.stringify({ stats })}\n`), 1_000);
  exitWithParent(() => {
    clearInterval(timer);
    for (const s of servers) s.closeAllConnections();
    process.exit(0);
  });
  const ready: ReceiversReady = { ready: true, ports: servers.map((s) => (s.address() as AddressInfo).port) };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((error: unknown) => {
  console.error('billed receivers failed to start:', error);
  process.exit(1);
});
