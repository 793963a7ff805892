/**
 * The benchmark's HTTPS receiver, in its own process so that the client side's CPU figures
 * (process.cpuUsage) never include the server's work. Loopback only.
 *
 *   node --import tsx bench/support/receiver-process.ts   (env: BENCH_TLS_CERT_FILE, BENCH_TLS_KEY_FILE)
 *
 * Paths: `/flaky` answers 503 to the first 3 attempts of each delivery (by
 * `X-Service-Delivery`), then 200; `/fail` always answers 503 with a typical proxy error
 * page; any other path answers 200 at once. With BENCH_REPORT=1 every request is reported as one JSON line on
 * stdout. The first stdout line is `{"port":N}`. Exits when its stdin closes.
 */

import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ERROR_PAGE, OK_BODY } from './receiver-pages';

const FLAKY_FAILURES = 3;

const report = process.env.BENCH_REPORT === '1';
const attempts = new Map<string, number>();

const server = createServer(
  {
    cert: readFileSync(process.env.BENCH_TLS_CERT_FILE!, 'utf8'),
    key: readFileSync(process.env.BENCH_TLS_KEY_FILE!, 'utf8'),
  },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      if (report) chunks.push(chunk);
    });
    req.on('end', () => {
      const at = Date.now();
      const path = req.url ?? '';
      const deliveryId = String(req.headers['x-service-delivery'] ?? '');
      let status = 200;
      if (path === '/fail') status = 503;
      else if (path === '/flaky') {
        const n = (attempts.get(deliveryId) ?? 0) + 1;
        attempts.set(deliveryId, n);
        if (n <= FLAKY_FAILURES) status = 503;
      }
      if (status === 200) res.writeHead(200, { 'content-type': 'application/json' }).end(OK_BODY);
      else res.writeHead(status, { 'content-type': 'text/html' }).end(ERROR_PAGE);
      if (report) {
        let userId: string | undefined;
        try {
          userId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { user?: { id?: string } }).user
            ?.id;
        } catch {
          userId = undefined;
        }
        const attempt = Number(req.headers['x-service-attempt'] ?? 0);
        process.stdout.write(`${JSON.stringify({ path, deliveryId, attempt, userId, status, at })}\n`);
      }
    });
  },
);

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
