/** createAttempter on its own: checks, refusals, the deadline, signing and the concurrency limit. */

import { createHmac } from 'node:crypto';
import { type AttemptOptions, createAttempter, type Run } from '../../../lambdas/core/attempt';
import { DEADLINE_MARGIN_MS } from '../../../lambdas/core/constants';
import { DeadlineError, InfrastructureError } from '../../../lambdas/core/errors';
import type { Settlement, Settler } from '../../../lambdas/core/settle';
import type { Target } from '../../../lambdas/core/targets';
import type { AttemptRecord, Connection, DeliveryMessage, EventFacts } from '../../../lambdas/core/types';
import { verifyWebhook } from '../../../lambdas/core/verify';
import { connection, HEADER_VALUE, ok, SECRET } from '../../support/fixtures';
import { memoryPorts, type Responder } from '../../support/memory';

const BODY =
  '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_7","metadata":{}},"application":{"id":"app_1","name":"Acme"}}';
const facts: EventFacts = { applicationId: 'app_1', userId: 'usr_7', event: 'user.identified' };
const options: AttemptOptions = {
  headerPrefix: 'X-Service',
  timeoutMs: 30_000,
  concurrency: 10,
  egress: { allowedPorts: [443], allowLoopback: false },
};
const plenty: Run = { remainingMs: () => 90_000, debugLines: false };

function delivery(connectionId = 'con_a', attempt = 1): DeliveryMessage {
  return {
    v: 1,
    type: 'delivery',
    deliveryId: `dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_${connectionId}`,
    eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
    connectionId,
    attempt,
    chainStart: 1,
    body: BODY,
    firstAttemptAt: '2026-11-21T15:00:00.000Z',
  };
}

/** A settler that keeps what it was asked to settle: the attempter's output, nothing decided. */
function recordingSettler() {
  const settlements: Settlement[] = [];
  const settler: Settler = {
    async settle(s) {
      settlements.push(s);
      return { deliveryId: s.delivery.deliveryId, attempt: s.delivery.attempt } as AttemptRecord;
    },
    async record() {},
    noteAppend() {},
  };
  return { settler, settlements };
}

function setup(responder?: Responder, opts: Partial<AttemptOptions> = {}) {
  const f = memoryPorts([connection('con_a')], { responder });
  let secretReads = 0;
  const secrets = f.deps.secrets;
  f.deps.secrets = {
    current(c) {
      secretReads++;
      return secrets.current(c);
    },
  };
  const { settler, settlements } = recordingSettler();
  const attempter = createAttempter(f.deps, settler, { ...options, ...opts });
  const to = (c: Connection): Target => ({ id: c.connectionId, connection: c });
  return { ...f, attempter, settlements, to, secretReads: () => secretReads };
}

describe('a connection that fails its checks', () => {
  it.each([
    ['connection_invalid', 'http://con-a.example.com/hooks', /must use https/],
    ['blocked', 'https://10.0.0.1/hooks', /refused/],
    ['blocked', 'https://con-a.example.com:8443/hooks', /port/],
  ])('is refused as %s (%s) without reading its secret or sending', async (reason, url, error) => {
    const { attempter, state, settlements, to, secretReads } = setup();
    await attempter.deliverTo(delivery(), to(connection('con_a', { url })), facts, plenty);
    expect(state.sent).toEqual([]);
    expect(secretReads()).toBe(0);
    expect(settlements).toHaveLength(1);
    expect(settlements[0]!.result).toMatchObject({ kind: 'refused', reason, durationMs: 0, error });
    expect(settlements[0]!.connection).toBeUndefined();
  });
});

describe('a refused target', () => {
  it('settles with the target refusal and its reason, without reading a secret or sending', async () => {
    const { attempter, state, settlements, secretReads } = setup();
    const disabled = connection('con_a', { enabled: false });
    await attempter.deliverTo(
      delivery(),
      { id: 'con_a', connection: disabled, refusal: ['connection_disabled', 'connection con_a is disabled'] },
      facts,
      plenty,
    );
    expect(state.sent).toEqual([]);
    expect(secretReads()).toBe(0);
    expect(settlements[0]).toMatchObject({
      result: { kind: 'refused', reason: 'connection_disabled', error: 'connection con_a is disabled' },
      // The record names the origin and path, never the query string; the header value is redacted.
      request: { method: 'POST', target: 'https://con-a.example.com/hooks', requestedAtMs: state.now },
      sensitive: [HEADER_VALUE],
    });
  });

  it('names no target for a missing connection', async () => {
    const { attempter, state, settlements } = setup();
    await attempter.deliverTo(
      delivery('con_gone'),
      { id: 'con_gone', refusal: ['connection_missing', 'connection con_gone does not exist'] },
      facts,
      plenty,
    );
    expect(state.sent).toEqual([]);
    expect(settlements[0]).toMatchObject({
      request: { target: '(unknown)' },
      result: { kind: 'refused', reason: 'connection_missing' },
      sensitive: [],
    });
  });
});

describe('the invocation deadline', () => {
  it('throws DeadlineError before sending when less than timeout + DEADLINE_MARGIN_MS is left', async () => {
    const { attempter, state, settlements, to } = setup();
    const left = options.timeoutMs + DEADLINE_MARGIN_MS - 1;
    const attempt = attempter.deliverTo(delivery(), to(connection('con_a')), facts, {
      remainingMs: () => left,
      debugLines: false,
    });
    await expect(attempt).rejects.toBeInstanceOf(DeadlineError);
    await expect(attempt).rejects.toMatchObject({ remainingMs: left });
    expect(state.sent).toEqual([]);
    expect(settlements).toEqual([]);
  });

  it('sends when exactly timeout + DEADLINE_MARGIN_MS is left', async () => {
    const { attempter, state, to } = setup();
    await attempter.deliverTo(delivery(), to(connection('con_a')), facts, {
      remainingMs: () => options.timeoutMs + DEADLINE_MARGIN_MS,
      debugLines: false,
    });
    expect(state.sent).toHaveLength(1);
  });
});

describe('the request sent', () => {
  it('carries a signature over "<timestamp>.<body>" that verifyWebhook accepts', async () => {
    const { attempter, state, to } = setup();
    await attempter.deliverTo(delivery('con_a', 3), to(connection('con_a')), facts, plenty);
    const [request] = state.sent;
    expect(request!.body).toBe(BODY);
    const timestamp = request!.headers['X-Service-Timestamp']!;
    expect(timestamp).toBe(String(state.now));
    const hmac = createHmac('sha256', SECRET).update(`${timestamp}.${BODY}`).digest('hex');
    expect(request!.headers['X-Service-Signature']).toBe(`sha256=${hmac}`);
    const verified = verifyWebhook({
      rawBody: request!.body,
      headers: request!.headers,
      secret: SECRET,
      now: state.now,
    });
    expect(verified).toMatchObject({
      deliveryId: delivery().deliveryId,
      attempt: 3,
      event: 'user.identified',
    });
    expect(() =>
      verifyWebhook({ rawBody: `${BODY} `, headers: request!.headers, secret: SECRET, now: state.now }),
    ).toThrow('signature does not match');
  });

  it('goes to the connection URL and method with the custom headers and the attempt timeout', async () => {
    const { attempter, state, to } = setup(undefined, { timeoutMs: 12_000 });
    await attempter.deliverTo(delivery(), to(connection('con_a', { method: 'PUT' })), facts, plenty);
    expect(state.sent[0]).toMatchObject({
      method: 'PUT',
      headers: expect.objectContaining({ Authorization: HEADER_VALUE }),
      timeoutMs: 12_000,
    });
    expect(state.sent[0]!.url.href).toBe('https://con-a.example.com/hooks?token=query-secret');
  });

  it('settles the result with the connection, and the secret, header and query values to redact', async () => {
    const { attempter, settlements, to } = setup(() => ok(202));
    const c = connection('con_a');
    await attempter.deliverTo(delivery(), to(c), facts, plenty);
    expect(settlements[0]).toMatchObject({
      result: ok(202),
      connection: c,
      request: { method: 'POST', target: 'https://con-a.example.com/hooks' },
    });
    expect(settlements[0]!.sensitive).toEqual(expect.arrayContaining([SECRET, HEADER_VALUE, 'query-secret']));
  });

  it('fails with an InfrastructureError, sending nothing, when the secret cannot be read', async () => {
    const { attempter, state, settlements, to } = setup();
    state.fail.add('secrets');
    await expect(
      attempter.deliverTo(delivery(), to(connection('con_a')), facts, plenty),
    ).rejects.toBeInstanceOf(InfrastructureError);
    expect(state.sent).toEqual([]);
    expect(settlements).toEqual([]);
  });
});

describe('the concurrency limit', () => {
  it('never has more attempts in flight than the limit, and still makes them all', async () => {
    const slow: Responder = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return ok(200);
    };
    const { attempter, state, settlements, to } = setup(slow, { concurrency: 2 });
    const ids = ['con_a', 'con_b', 'con_c', 'con_d', 'con_e'];
    await Promise.all(ids.map((id) => attempter.deliverTo(delivery(id), to(connection(id)), facts, plenty)));
    expect(state.maxInFlight).toBe(2);
    expect(state.sent).toHaveLength(5);
    expect(settlements.map((s) => s.delivery.connectionId).sort()).toEqual(ids);
  });
});
