/**
 * The benchmark's HTTPS receiver, in its own process so that the client side's CPU figures
 * (process.cpuUsage) never include the server's work. Loopback only.
 *
 *   node --import tsx test/support/receiver-process.ts   (env: BENCH_TLS_CERT_FILE, BENCH_TLS_KEY_FILE)
 *
 * Paths: `/flaky` answers 503 to the first 3 attempts of each delivery (by
 * `X-Service-Delivery`), then 200; `/fail` always answers 503 with a typical proxy error
 * page; any other path answers 200 at once. With BENCH_REPORT=1 every request is reported as
 * one JSON line on stdout. The first stdout line is `{"ready":true,"port":N}` (child.ts);
 * exits when its stdin closes.
 */

import { readFileSync } from 'node:fs';
import { exitWithParent } from './child';
import { ERROR_PAGE, OK_BODY } from './receiver-pages';
import { type ReceiverReady, type ReceiverReport, serveHttps } from './receivers';

const FLAKY_FAILURES = 3;

async function main(): Promise<void> {
  const report = process.env.BENCH_REPORT === '1';
  const attempts = new Map<string, number>();
  const pki = {
    certPem: readFileSync(process.env.BENCH_TLS_CERT_FILE!, 'utf8'),
    keyPem: readFileSync(process.env.BENCH_TLS_KEY_FILE!, 'utf8'),
  };
  const served = await serveHttps(pki, (req, res, body) => {
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
    if (!report) return;
    let userId: string | undefined;
    try {
      userId = (JSON.parse(body.toString('utf8')) as { user?: { id?: string } }).user?.id;
    } catch {
      userId = undefined;
    }
    const attempt = Number(req.headers['x-service-attempt'] ?? 0);
    const line: ReceiverReport = { path, deliveryId, attempt, userId, status, at };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  });
  exitWithParent(() => void served.close().then(() => process.exit(0)));
  const ready: ReceiverReady = { ready: true, port: served.port };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((error: unknown) => {
  console.error('bench receiver failed to start:', error);
  process.exit(1);
});
