/**
 * Adversarial suite, dispatcher level: what a refused destination, a redirect or a broken
 * stored connection becomes. The real dispatcher core and the real HttpsSender (stub DNS,
 * HTTPS receivers on 127.0.0.1) run against in-memory fakes of the queues and tables. Every
 * refused destination here is this machine, so even a broken check stays on loopback.
 *
 * A refused destination is permanent: outcome `blocked`, no retry, the attempt logged, the
 * delivery dead-lettered with reason `blocked`, and one `BlockedDestinations` metric.
 */

import type { HttpsSender, Resolver } from '../../lambdas/adapters/http/sender';
import { createDispatcher } from '../../lambdas/core/dispatch';
import type { EgressPolicy } from '../../lambdas/core/egress';
import type { Connection } from '../../lambdas/core/types';
import { connection } from '../support/fixtures';
import { memoryPorts } from '../support/memory';
import { type Receiver, respond, startReceiver } from '../support/receivers';
import { AWS_POLICY, senderFor, stubResolver } from './helpers';

const ATTEMPT_TIMEOUT_MS = 2_000;
const plenty = { remainingMs: () => 60_000 };
const event = {
  v: 1,
  type: 'event',
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  occurredAt: '2026-11-21T14:53:00.123Z',
  user: { id: 'usr_7', email: 'grace@example.com' },
  application: { id: 'app_1', name: 'Acme' },
};

let receiver: Receiver;
const senders: HttpsSender[] = [];

beforeEach(async () => {
  receiver = await startReceiver(respond(200));
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await receiver.close();
});

/** The dispatcher core with the real sender and fakes of everything else; runs one event through it. */
async function dispatch(conn: Connection, egress: EgressPolicy, resolver?: Resolver) {
  const f = memoryPorts([conn]);
  const sender = senderFor(egress, resolver);
  senders.push(sender);
  f.deps.sender = sender;
  const dispatcher = createDispatcher(f.deps, {
    headerPrefix: 'X-Service',
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    attemptTtlDays: 30,
    concurrency: 10,
    egress,
  });
  const { failures } = await dispatcher.processBatch(
    [{ messageId: 'm1', body: JSON.stringify(event) }],
    plenty,
  );
  expect(failures).toEqual([]);
  f.metrics.flush();
  return f.state;
}

const deployed = (port: number): EgressPolicy => ({ allowedPorts: [port], allowLoopback: false });
const local = (...ports: number[]): EgressPolicy => ({ allowedPorts: ports, allowLoopback: true });

describe('a blocked destination', () => {
  const scenarios: Array<[string, () => [string, EgressPolicy, Resolver?], string]> = [
    [
      'an IP literal refused by the dispatch re-check (0x7f.1)',
      () => [`https://0x7f.1:${receiver.port}/hooks`, deployed(receiver.port)],
      'url: destination refused: 127.0.0.1 is in the refused range 127.0.0.0/8',
    ],
    [
      'a port refused by the dispatch re-check (:22)',
      () => ['https://receiver.test:22/hooks', AWS_POLICY, stubResolver(['127.0.0.1'])],
      'url: port 22 is not allowed (allowed: 443)',
    ],
    [
      'a name resolving to {reachable, 10.0.0.5} at connect time',
      () => [
        `https://receiver.test:${receiver.port}/hooks`,
        local(receiver.port),
        stubResolver(['127.0.0.1', '10.0.0.5']),
      ],
      'receiver.test resolves to a refused address: 10.0.0.5 is in the refused range 10.0.0.0/8',
    ],
    [
      'a name rebound to 127.0.0.1 at connect time',
      () => [
        `https://receiver.test:${receiver.port}/hooks`,
        deployed(receiver.port),
        stubResolver(['127.0.0.1']),
      ],
      'receiver.test resolves to a refused address: 127.0.0.1 is in the refused range 127.0.0.0/8',
    ],
  ];

  it.each(scenarios)(
    'is parked as blocked, never retried, logged, counted and never reached: %s',
    async (_, setup, reason) => {
      const [url, egress, resolver] = setup();
      const state = await dispatch(connection('con_a', { url }), egress, resolver);
      expect(receiver.requests).toHaveLength(0);
      expect(state.scheduled).toEqual([]);
      expect(state.records).toEqual([
        expect.objectContaining({ attempt: 1, outcome: 'blocked', final: true, error: reason }),
      ]);
      expect(state.records[0]!.nextAttemptAt).toBeUndefined();
      expect(state.parked).toEqual([
        expect.objectContaining({
          reason: 'blocked',
          lastError: reason,
          connectionId: 'con_a',
          attempts: 1,
        }),
      ]);
      expect(state.deadLetters).toEqual([]);
      // Counted once, in the invocation's EMF document, not in the attempt's log line.
      expect(state.logs.some((l) => l.fields && '_aws' in l.fields)).toBe(false);
      expect(state.emf.filter((d) => 'BlockedDestinations' in d)).toEqual([
        expect.objectContaining({
          BlockedDestinations: 1,
          Stack: 'test-stack',
          Outcome: 'blocked',
          _aws: expect.objectContaining({
            Timestamp: state.now,
            CloudWatchMetrics: expect.arrayContaining([
              {
                Namespace: 'Webhooks',
                Dimensions: [['Stack']],
                Metrics: expect.arrayContaining([{ Name: 'BlockedDestinations', Unit: 'Count' }]),
              },
            ]),
          }),
        }),
      ]);
    },
  );
});

describe('a redirect to a private address', () => {
  let target: Receiver;
  beforeEach(async () => {
    target = await startReceiver(respond(200, 'internal'));
  });
  afterEach(() => target.close());

  it.each([302, 307])('is not followed: a %i is a failed attempt, retried after 1 s', async (status) => {
    receiver.behave((_req, res) =>
      res.writeHead(status, { location: `https://127.0.0.1:${target.port}/` }).end(),
    );
    const state = await dispatch(
      connection('con_a', { url: receiver.url }),
      local(receiver.port, target.port),
    );
    expect(receiver.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
    expect(state.records).toEqual([
      expect.objectContaining({
        outcome: 'http_error',
        statusCode: status,
        final: false,
        error: `receiver answered HTTP ${status}`,
      }),
    ]);
    expect(state.scheduled).toEqual([{ delivery: expect.objectContaining({ attempt: 2 }), delaySeconds: 1 }]);
    expect(state.deadLetters).toEqual([]);
  });
});

describe('a stored connection that breaks the rules', () => {
  const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
  it.each([
    [
      'credentials in the URL',
      { url: 'https://user:url-pass-93b1@receiver.test/hooks' },
      'must not contain credentials',
    ],
    [
      'a header override in mixed case',
      { headers: { 'x-SERVICE-Signature': 'sha256=forged' } },
      'own prefix',
    ],
    ['CR/LF in a header value', { headers: { 'X-Tenant': 'a\r\nX-Injected: 1' } }, 'CR, LF or NUL'],
    ['an oversized header value', { headers: { Authorization: 'x'.repeat(4097) } }, 'at most 4096 bytes'],
    ['too many headers', { headers: tooMany }, 'at most 20 custom headers'],
  ])('is rejected at dispatch without a request: %s', async (_, broken, rule) => {
    const state = await dispatch(
      connection('con_a', { url: receiver.url, ...broken } as Partial<Connection>),
      local(receiver.port),
    );
    expect(receiver.requests).toHaveLength(0);
    expect(state.scheduled).toEqual([]);
    expect(state.records).toEqual([expect.objectContaining({ outcome: 'rejected', final: true })]);
    expect(state.deadLetters).toEqual([
      expect.objectContaining({ reason: 'connection_invalid', error: expect.stringContaining(rule) }),
    ]);
    expect(JSON.stringify([state.logs, state.records, state.deadLetters])).not.toContain('url-pass-93b1');
    expect(state.logs.some((l) => l.fields?._aws)).toBe(false);
  });
});
