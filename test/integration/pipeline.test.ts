/**
 * The delivery pipeline end to end on the emulators (fauxqs, dynalite, local Secrets
 * Manager) with real HTTPS receivers on loopback, in real time: SQS delays, the runner's
 * Lambda semantics, DynamoDB items and DLQ messages are all the real thing.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import {
  type Behaviour,
  type ReceivedRequest,
  type Receiver,
  respond,
  startReceiver,
} from '../support/receivers';

/** Verifies a delivery without the project's signing code: HMAC-SHA256 over "<ts>.<raw body>". */
function verifiedBy(secret: string, req: ReceivedRequest): boolean {
  const ts = String(req.headers['x-service-timestamp']);
  const given = Buffer.from(String(req.headers['x-service-signature']));
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret).update(`${ts}.${req.body}`).digest('hex')}`,
  );
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const failTimes =
  (n: number): Behaviour =>
  (req, res, count) =>
    count <= n ? res.writeHead(503).end('busy') : respond(200)(req, res, count);

let receivers: Receiver[] = [];
let harness: Harness;
const logLines: string[] = [];
const realStdout = process.stdout.write.bind(process.stdout);
const realStderr = process.stderr.write.bind(process.stderr);

beforeAll(async () => {
  receivers = await Promise.all(Array.from({ length: 9 }, () => startReceiver()));
  // Capture every log line the dispatcher writes (Powertools writes JSON lines: INFO and
  // DEBUG to stdout, WARN and ERROR to stderr).
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logLines.push(String(chunk));
    return realStdout(chunk as string, ...(rest as []));
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logLines.push(String(chunk));
    return realStderr(chunk as string, ...(rest as []));
  }) as typeof process.stderr.write;
  harness = await startHarness({ ports: receivers.map((r) => r.port), attemptTimeoutMs: 1_000 });
});

afterAll(async () => {
  process.stdout.write = realStdout;
  process.stderr.write = realStderr;
  await harness?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('delivery pipeline on the local emulators', () => {
  it('delivers a published event, signed so that an independent verifier accepts it', async () => {
    const [receiver] = receivers;
    const app = id('app');
    const con = await harness.createConnection({
      applicationId: app,
      url: `${receiver!.url}?tenant=1`,
      headers: { Authorization: 'Bearer receiver-api-key-123' },
    });
    const event = userIdentified(app);
    await harness.publish(event);
    const [req] = await receiver!.waitFor(1);
    expect(verifiedBy(con.secret, req!)).toBe(true);
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-service-event']).toBe('user.identified');
    expect(req!.headers.authorization).toBe('Bearer receiver-api-key-123');
    expect(Math.abs(Number(req!.headers['x-service-timestamp']) - req!.at)).toBeLessThan(5_000);
    expect(JSON.parse(req!.body)).toEqual({
      event: 'user.identified',
      timestamp: event.occurredAt,
      user: event.user,
      application: event.application,
    });
    const attempts = await eventually(
      () => harness.attemptsOf(con.connectionId),
      (a) => a.length === 1,
    );
    expect(attempts[0]).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      attempt: 1,
      final: true,
      target: `${receiver!.url}`,
      deliveryId: req!.headers['x-service-delivery'],
    });
  });

  it('retries a receiver failing twice after about 1 s and 2 s, with the same body and fresh timestamps', async () => {
    const receiver = receivers[1]!;
    receiver.behave(failTimes(2));
    const app = id('app');
    const con = await harness.createConnection({ applicationId: app, url: receiver.url });
    await harness.publish(userIdentified(app));
    const reqs = await receiver.waitFor(3, 30_000);
    const gaps = [reqs[1]!.at - reqs[0]!.at, reqs[2]!.at - reqs[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(900);
    expect(gaps[0]).toBeLessThan(3_000);
    expect(gaps[1]).toBeGreaterThanOrEqual(1_900);
    expect(gaps[1]).toBeLessThan(4_500);
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    expect(new Set(reqs.map((r) => r.headers['x-service-timestamp'])).size).toBe(3);
    expect(new Set(reqs.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    expect(reqs.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    expect(reqs.every((r) => verifiedBy(con.secret, r))).toBe(true);
    const attempts = await eventually(
      () => harness.attemptsOf(con.connectionId),
      (a) => a.length === 3,
    );
    expect(attempts.map((a) => [a.attempt, a.outcome, a.final])).toEqual([
      [1, 'http_error', false],
      [2, 'http_error', false],
      [3, 'delivered', true],
    ]);
  });

  it('publishes and retries an event whose user name holds characters outside the BMP, the same bytes on every attempt', async () => {
    // Real SQS accepts #x10000-#x10FFFF in a message body; local mode's SQS must too, on the
    // ingress queue (the publish) and on the retry queue (every retry carries the body).
    const receiver = receivers[8]!;
    receiver.behave(failTimes(2));
    const app = id('app');
    const con = await harness.createConnection({ applicationId: app, url: receiver.url });
    const name = 'Zoë 🚀 Lovelace 𝒜';
    const event = userIdentified(app);
    await harness.publish({ ...event, user: { ...event.user, name } });
    const reqs = await receiver.waitFor(3, 30_000);
    expect(reqs.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    expect(Buffer.from(reqs[0]!.body, 'utf8').includes(Buffer.from(name, 'utf8'))).toBe(true);
    expect((JSON.parse(reqs[0]!.body) as { user: { name: string } }).user.name).toBe(name);
    expect(reqs.every((r) => verifiedBy(con.secret, r))).toBe(true);
  });

  it('parks a delivery to a receiver that always fails after 4 attempts, with a complete attempt log', async () => {
    const receiver = receivers[2]!;
    receiver.behave(respond(500, 'internal error'));
    const app = id('app');
    const con = await harness.createConnection({ applicationId: app, url: receiver.url });
    await harness.publish(userIdentified(app));
    await receiver.waitFor(4, 30_000);
    const [parked] = await eventually(
      () => harness.parkedOf(con.connectionId),
      (p) => p.length === 1,
    );
    expect(parked).toMatchObject({
      reason: 'exhausted',
      lastError: 'receiver answered HTTP 500',
      lastStatusCode: 500,
      attempts: 4,
      applicationId: app,
      body: receiver.requests[0]!.body,
    });
    const attempts = await eventually(
      () => harness.attemptsOf(con.connectionId),
      (a) => a.length === 4,
    );
    expect(attempts.map((a) => [a.attempt, a.outcome, a.statusCode, a.final])).toEqual([
      [1, 'http_error', 500, false],
      [2, 'http_error', 500, false],
      [3, 'http_error', 500, false],
      [4, 'http_error', 500, true],
    ]);
    expect(attempts[3]).toMatchObject({ responseSnippet: 'internal error', failedOn: expect.any(String) });
    expect(attempts.slice(0, 3).every((a) => a.nextAttemptAt)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests).toHaveLength(4);
  });

  it('honours the (shortened) attempt timeout against a hanging receiver and retries', async () => {
    const receiver = receivers[3]!;
    receiver.behave((req, res, n) => (n === 1 ? undefined : respond(200)(req, res, n)));
    const app = id('app');
    const con = await harness.createConnection({ applicationId: app, url: receiver.url });
    await harness.publish(userIdentified(app));
    await receiver.waitFor(2, 30_000);
    const attempts = await eventually(
      () => harness.attemptsOf(con.connectionId),
      (a) => a.length === 2,
    );
    expect(attempts[0]).toMatchObject({ outcome: 'timeout', final: false });
    expect(attempts[0]!.durationMs).toBeGreaterThanOrEqual(900);
    expect(attempts[0]!.durationMs).toBeLessThan(5_000);
    expect(attempts[1]).toMatchObject({ outcome: 'delivered', attempt: 2 });
  });

  it('dead-letters a poison message with its reason while its batch-mates are delivered', async () => {
    const receiver = receivers[4]!;
    const app = id('app');
    await harness.createConnection({ applicationId: app, url: receiver.url });
    await harness.publishBatch([
      '{"v":1,"type":"event", oops',
      userIdentified(app),
      { ...userIdentified(app), user: { email: 'no-id@example.com' } },
      userIdentified(app),
    ]);
    await receiver.waitFor(2);
    const letters = await harness.deadLetters(2);
    expect(letters.map((l) => l.reason).sort()).toEqual(['invalid_message', 'invalid_payload']);
    expect(letters.find((l) => l.reason === 'invalid_payload')!.error).toContain('user.id');
    expect(letters.find((l) => l.reason === 'invalid_message')!.source).toBe('{"v":1,"type":"event", oops');
  });

  it('fans an event out to the 3 connections of its application, each signed with its own secret', async () => {
    const app = id('app');
    const targets = receivers.slice(5, 8);
    const cons = await Promise.all(
      targets.map((r) => harness.createConnection({ applicationId: app, url: r.url })),
    );
    await harness.createConnection({ applicationId: app, url: receivers[0]!.url, enabled: false });
    const before = receivers[0]!.requests.length;
    await harness.publish(userIdentified(app));
    const got = await Promise.all(targets.map((r) => r.waitFor(1)));
    expect(got.map(([req], i) => verifiedBy(cons[i]!.secret, req!))).toEqual([true, true, true]);
    expect(new Set(got.map(([req]) => req!.body)).size).toBe(1);
    expect(new Set(got.map(([req]) => req!.headers['x-service-delivery'])).size).toBe(3);
    await new Promise((r) => setTimeout(r, 500));
    expect(receivers[0]!.requests.length).toBe(before);
  });

  it('writes structured JSON logs with ids and outcome for failed attempts, none per success at INFO, and never a secret or custom header value', async () => {
    const lines = logLines
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The default level is INFO: a successful delivery is in the attempt log, not in the logs.
    expect(lines.filter((l) => l.message === 'delivered')).toEqual([]);
    const failed = lines.filter((l) => l.message === 'attempt failed; retry scheduled');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]).toMatchObject({
      level: 'WARN',
      deliveryId: expect.stringMatching(/^dlv_/),
      connectionId: expect.stringMatching(/^con_/),
      eventId: expect.stringMatching(/^evt_/),
      attempt: expect.any(Number),
      outcome: 'http_error',
      statusCode: expect.any(Number),
      nextAttemptAt: expect.any(String),
    });
    const all = logLines.join('');
    expect(all).not.toContain('receiver-api-key-123');
    expect(all).not.toMatch(/whsec_[A-Za-z0-9+/=]{20,}/);
    expect(all).not.toContain('tenant=1');
  });
});

async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
