/**
 * The handler around an invocation, wired as production: the metrics flushed once at its end
 * (also when records failed), and every log line tagged with the request id and cold start.
 */

import type { SQSEvent } from 'aws-lambda';
import { invocationLog } from '../../../lambdas/adapters/logger';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { createHandler } from '../../../lambdas/dispatcher/handler';
import { connection, ok, DISPATCHER_OPTIONS as options } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const RETRY_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks-RetryQueue-abc';
const INGRESS_ARN = 'arn:aws:sqs:eu-west-1:123456789012:webhooks-Queue-xyz';

const eventBody = (n: number) =>
  JSON.stringify({
    v: 1,
    type: 'event',
    eventId: `evt_01JD3XQ4Z8K2M5N7P9R1S3T5V${n}`,
    event: 'user.identified',
    occurredAt: '2026-11-21T14:53:00.123Z',
    user: { id: 'usr_7', email: 'grace@example.com' },
    application: { id: 'app_1', name: 'Acme' },
  });

function wired(env: Record<string, string | undefined> = {}) {
  const f = memoryPorts([connection('con_a')], { responder: () => ok(200) });
  const log = invocationLog(f.deps.log, env);
  const dispatcher = createDispatcher({ ...f.deps, log }, options);
  const handler = createHandler(dispatcher, RETRY_URL, {
    during: log.during,
    finish: () => f.metrics.flush(),
  });
  const sqsEvent = (...bodies: string[]) =>
    ({
      Records: bodies.map((body, i) => ({
        messageId: `m${i}`,
        body,
        eventSourceARN: INGRESS_ARN,
        attributes: { SentTimestamp: String(f.state.now - 2_000) },
      })),
    }) as unknown as SQSEvent;
  return { ...f, handler, sqsEvent };
}

const context = (awsRequestId: string) => ({ awsRequestId, getRemainingTimeInMillis: () => 60_000 });

describe('metrics: one flush at the end of each invocation', () => {
  it("writes the invocation's documents once, after the batch, with the latency from the sent time", async () => {
    const f = wired();
    await f.handler(f.sqsEvent(eventBody(1), eventBody(2)), context('req-1'));
    expect(f.state.emf).toHaveLength(1);
    expect(f.state.emf[0]).toMatchObject({ Attempts: 2, Deliveries: 2, DeliveryLatency: [2_000, 2_000] });
    await f.handler(f.sqsEvent(eventBody(3)), context('req-2'));
    expect(f.state.emf).toHaveLength(2);
    expect(f.state.emf[1]).toMatchObject({ Attempts: 1, Deliveries: 1 });
  });

  it('flushes when records fail too: what happened before the failure is counted', async () => {
    const f = wired();
    f.state.fail.add('secrets');
    f.state.fail.add('scheduler');
    const result = await f.handler(f.sqsEvent(eventBody(1), '{not json'), context('req-1'));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    // Two failing dependencies (one value each of Dependency): two documents, written together.
    expect(f.state.emf).toEqual([
      expect.objectContaining({ DeadLetters: 1, Reason: 'invalid_message', Dependency: 'secrets' }),
      expect.objectContaining({ InfrastructureFailures: 1, Dependency: 'sqs' }),
    ]);
  });
});

describe('log lines carry the invocation', () => {
  it('tags every line with the request id, and the first invocation alone as the cold start', async () => {
    const f = wired();
    f.state.connections.set('con_a', connection('con_a', { url: 'https://10.0.0.5/hooks' }));
    await f.handler(f.sqsEvent(eventBody(1)), context('req-cold'));
    await f.handler(f.sqsEvent(eventBody(2)), context('req-warm'));
    expect(f.state.logs.length).toBe(2);
    expect(f.state.logs.map((l) => [l.fields?.function_request_id, l.fields?.cold_start])).toEqual([
      ['req-cold', true],
      ['req-warm', false],
    ]);
    // With the delivery's own ids beside them.
    expect(f.state.logs[0]!.fields).toMatchObject({
      connectionId: 'con_a',
      eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V1',
      deliveryId: expect.stringMatching(/^dlv_/),
    });
  });

  it("keeps each invocation's id on its own lines when two run at once", async () => {
    const f = wired();
    f.state.connections.set('con_a', connection('con_a', { url: 'https://10.0.0.5/hooks' }));
    await Promise.all([
      f.handler(f.sqsEvent(eventBody(1)), context('req-a')),
      f.handler(f.sqsEvent(eventBody(2)), context('req-b')),
    ]);
    const byEvent = Object.fromEntries(
      f.state.logs.map((l) => [l.fields?.eventId, l.fields?.function_request_id]),
    );
    expect(byEvent).toEqual({
      evt_01JD3XQ4Z8K2M5N7P9R1S3T5V1: 'req-a',
      evt_01JD3XQ4Z8K2M5N7P9R1S3T5V2: 'req-b',
    });
  });

  it('counts no cold start under provisioned concurrency (initialised ahead of any request)', async () => {
    const f = wired({ AWS_LAMBDA_INITIALIZATION_TYPE: 'provisioned-concurrency' });
    f.state.connections.set('con_a', connection('con_a', { url: 'https://10.0.0.5/hooks' }));
    await f.handler(f.sqsEvent(eventBody(1)), context('req-1'));
    expect(f.state.logs[0]!.fields?.cold_start).toBe(false);
  });
});
