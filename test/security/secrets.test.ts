/**
 * Adversarial suite, secrets hygiene: the signing secret, custom header values, query
 * strings and URL credentials never appear in a log line, the attempt log or a dead letter,
 * whatever the receiver does (echo them back, fail, hang, refuse) and whatever the
 * dispatcher does (deliver, retry, block, reject, fail on infrastructure).
 *
 * The log is the real Powertools-backed adapter at DEBUG; every byte it writes to stdout and
 * stderr is captured. Deliveries go through the real dispatcher core and HttpsSender to
 * HTTPS receivers on loopback; the queues and tables are in-memory fakes.
 */

import type { LookupAddress } from 'node:dns';
import { Logger } from '@aws-lambda-powertools/logger';
import type { HttpsSender } from '../../lambdas/adapters/http/sender';
import { powertoolsLog } from '../../lambdas/adapters/logger';
import { EmfMetrics } from '../../lambdas/adapters/metrics/emf';
import { createDispatcher } from '../../lambdas/core/dispatch';
import type { Connection } from '../../lambdas/core/types';
import { connection, HEADER_VALUE, SECRET } from '../support/fixtures';
import { memoryPorts } from '../support/memory';
import { type Receiver, startReceiver } from '../support/receivers';
import { senderFor } from './helpers';

const API_KEY = 'key-5d1e0c7a-never-logged';
const QUERY_TOKEN = 'query-token-81f2';
const URL_PASSWORD = 'url-pass-0b4e';
const SENSITIVE = [SECRET, HEADER_VALUE, API_KEY, QUERY_TOKEN, URL_PASSWORD];

const event = (eventId: string) => ({
  v: 1,
  type: 'event',
  eventId,
  event: 'user.identified',
  occurredAt: '2026-11-21T14:53:00.123Z',
  user: { id: 'usr_7', email: 'grace@example.com' },
  application: { id: 'app_1', name: 'Acme' },
});

let receiver: Receiver;
let closedPort: number;
let sender: HttpsSender;
let lines: string[];
const restore: Array<() => void> = [];

/** Captures everything written to stdout and stderr until the test ends. */
function captureOutput(): string[] {
  const captured: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = original;
    });
  }
  return captured;
}

/** receiver.test is the receiver; any other name also resolves to a private address. */
async function resolver(hostname: string): Promise<LookupAddress[]> {
  const addresses = hostname === 'receiver.test' ? ['127.0.0.1'] : ['127.0.0.1', '10.0.0.5'];
  return addresses.map((address) => ({ address, family: 4 }));
}

beforeEach(async () => {
  receiver = await startReceiver((req, res) => {
    // A receiver that echoes what it got, including the credentials, in an error page.
    const echo = `secret ${SECRET}; auth ${req.headers.authorization}; key ${req.headers['x-api-key']}; path ${req.path}`;
    if (req.path.startsWith('/ok')) res.writeHead(200).end(echo);
    else if (req.path.startsWith('/hang')) return;
    else res.writeHead(500).end(echo);
  });
  const closed = await startReceiver();
  closedPort = closed.port;
  await closed.close();
  sender = senderFor({ allowedPorts: [receiver.port, closedPort], allowLoopback: true }, resolver);
  lines = captureOutput();
});
afterEach(async () => {
  for (const undo of restore.splice(0)) undo();
  await sender.close();
  await receiver.close();
});

function connectionTo(id: string, url: string, overrides: Partial<Connection> = {}): Connection {
  return connection(id, {
    url,
    headers: { Authorization: HEADER_VALUE, 'X-Api-Key': API_KEY },
    ...overrides,
  });
}

it('keeps the secret, header values, query strings and URL credentials out of every log line and record', async () => {
  const origin = `https://receiver.test:${receiver.port}`;
  const connections = [
    connectionTo('con_ok', `${origin}/ok?token=${QUERY_TOKEN}`),
    connectionTo('con_fail', `${origin}/fail?token=${QUERY_TOKEN}`),
    connectionTo('con_hang', `${origin}/hang?token=${QUERY_TOKEN}`),
    connectionTo('con_refused', `https://receiver.test:${closedPort}/x?token=${QUERY_TOKEN}`),
    connectionTo('con_blocked', `https://rebound.test:${receiver.port}/x?token=${QUERY_TOKEN}`),
    connectionTo('con_creds', `https://user:${URL_PASSWORD}@receiver.test:${receiver.port}/x`),
    connectionTo('con_crlf', `${origin}/x`, {
      headers: { Authorization: `${HEADER_VALUE}\r\nX-Injected: 1` },
    }),
  ];
  const f = memoryPorts(connections);
  f.deps.sender = sender;
  f.deps.log = powertoolsLog(new Logger({ serviceName: 'webhook-dispatcher', logLevel: 'DEBUG' }));
  const dispatcher = createDispatcher(f.deps, {
    headerPrefix: 'X-Service',
    attemptTimeoutMs: 1_000,
    attemptTtlDays: 30,
    concurrency: 10,
    egress: { allowedPorts: [receiver.port, closedPort], allowLoopback: true },
  });
  const plenty = { remainingMs: () => 60_000 };

  await dispatcher.processBatch([{ messageId: 'm1', body: JSON.stringify(event('evt_1')) }], plenty);
  // An infrastructure failure too: its error is logged with its causes.
  f.state.fail.add('secrets');
  await dispatcher.processBatch([{ messageId: 'm2', body: JSON.stringify(event('evt_2')) }], plenty);
  for (const undo of restore.splice(0)) undo();

  // Every kind of ending happened, and each wrote at least one line.
  expect(Object.fromEntries(f.state.records.map((r) => [r.connectionId, r.outcome]))).toEqual({
    con_ok: 'delivered',
    con_fail: 'http_error',
    con_hang: 'timeout',
    con_refused: 'network_error',
    con_blocked: 'blocked',
    con_creds: 'rejected',
    con_crlf: 'rejected',
  });
  const logLines = lines.join('').split('\n').filter(Boolean);
  expect(logLines.length).toBeGreaterThanOrEqual(f.state.records.length + 1);
  expect(logLines.some((l) => l.includes('delivery handed back to the queue'))).toBe(true);
  // The receivers did get the credentials: the test is not vacuous.
  expect(receiver.requests.map((r) => r.headers.authorization)).toContain(HEADER_VALUE);

  for (const line of logLines) {
    expect(() => JSON.parse(line)).not.toThrow();
    for (const value of SENSITIVE) expect(line).not.toContain(value);
  }
  const stored = JSON.stringify([f.state.records, f.state.deadLetters, f.state.scheduled, f.state.deferred]);
  for (const value of SENSITIVE) expect(stored).not.toContain(value);
  expect(f.state.records.find((r) => r.connectionId === 'con_fail')!.responseSnippet).toBe(
    'secret [redacted]; auth [redacted]; key [redacted]; path /fail?token=[redacted]',
  );
});

it('writes the BlockedDestinations metric as a top-level Embedded Metric Format document on stdout', async () => {
  const f = memoryPorts([connectionTo('con_blocked', `https://rebound.test:${receiver.port}/x`)]);
  f.deps.sender = sender;
  const metrics = new EmfMetrics({ stack: 'test-stack', clock: f.deps.clock });
  f.deps.metrics = metrics;
  f.deps.log = powertoolsLog(new Logger({ serviceName: 'webhook-dispatcher', logLevel: 'INFO' }));
  const dispatcher = createDispatcher(f.deps, {
    headerPrefix: 'X-Service',
    attemptTimeoutMs: 1_000,
    attemptTtlDays: 30,
    concurrency: 10,
    egress: { allowedPorts: [receiver.port], allowLoopback: true },
  });
  await dispatcher.processBatch([{ messageId: 'm1', body: JSON.stringify(event('evt_1')) }], {
    remainingMs: () => 60_000,
  });
  metrics.flush();
  for (const undo of restore.splice(0)) undo();
  const documents = lines
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((d) => '_aws' in d);
  // One document, its own line (not merged into a log line): what CloudWatch Logs extracts.
  expect(documents).toEqual([
    expect.objectContaining({
      Stack: 'test-stack',
      BlockedDestinations: 1,
      _aws: {
        Timestamp: f.state.now,
        CloudWatchMetrics: expect.arrayContaining([
          {
            Namespace: 'Webhooks',
            Dimensions: [['Stack']],
            Metrics: expect.arrayContaining([{ Name: 'BlockedDestinations', Unit: 'Count' }]),
          },
        ]),
      },
    }),
  ]);
  expect(documents[0]).not.toHaveProperty('level');
});
