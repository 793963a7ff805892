/**
 * A real HTTPS receiver on loopback for tests: records every request (raw body, headers,
 * arrival time) and answers with whatever the test's behaviour says.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createLocalPki, type LocalPki } from '../../local/tls';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type Behaviour = (req: ReceivedRequest, res: ServerResponse, n: number) => void;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  behave(behaviour: Behaviour): void;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

let shared: LocalPki | undefined;
/**
 * The throwaway PKI of this test process (one per Jest worker: key generation is not free).
 * Tests pass its CA to the sender they build, so each process trusts exactly its own
 * receivers, whatever other projects' global set-ups put in the environment.
 */
export function testPki(): LocalPki {
  shared ??= createLocalPki({ hosts: ['127.0.0.1', 'localhost', '::1', 'receiver.test'] });
  return shared;
}

export const respond =
  (status: number, body = '{"received":true}'): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  };

export async function startReceiver(behaviour: Behaviour = respond(200), pki = testPki()): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let current = behaviour;
  const waiters: Array<() => void> = [];
  const server: Server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      current(received, res, requests.length);
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    port,
    requests,
    behave(b) {
      current = b;
    },
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline)
          throw new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return requests.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
