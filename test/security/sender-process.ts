/**
 * A process of its own for connect-time.test.ts, so that the environment the parent sets
 * (proxy variables, NODE_TLS_REJECT_UNAUTHORIZED) is the one Node itself reads. It delivers to
 * the URLs on its command line and prints each result as a JSON line. A URL prefixed with
 * `strict:` goes through a sender without the test CA, as in AWS. It never calls close(): the
 * process must exit by itself, with nothing left holding it (a pooled socket, a timer).
 */
import { HttpsSender } from '../../lambdas/adapters/http/sender';

const [portText, ...urls] = process.argv.slice(2);
const options = {
  egress: { allowedPorts: [Number(portText)], allowLoopback: true },
  // blocked.test is refused by the lookup: its socket is made, then destroyed before connecting.
  resolver: async (host: string) => [
    { address: host === 'blocked.test' ? '10.0.0.5' : '127.0.0.1', family: 4 },
  ],
};
const trusting = new HttpsSender({ ...options, ca: [process.env.TEST_CA_PEM ?? ''] });
const strict = new HttpsSender(options);

void (async () => {
  for (const url of urls) {
    const sender = url.startsWith('strict:') ? strict : trusting;
    const result = await sender.send({
      method: 'POST',
      url: new URL(url.replace(/^strict:/, '')),
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      timeoutMs: 2_000,
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
})();
