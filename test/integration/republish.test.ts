/**
 * Republished events in local mode (docs/reliability.md "Republished events"): the production
 * dispatcher on the emulators, claims in the rate-windows table on dynalite. An upstream that
 * publishes the same eventId again, with another occurredAt or the same, reaches the receiver once,
 * under one delivery id, with one attempt logged.
 */

import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { messagesLeft } from '../support/queries';
import { type Receiver, startReceiver } from '../support/receivers';
import { waitFor } from '../support/wait';

let receiver: Receiver;
let harness: Harness;

beforeAll(async () => {
  receiver = await startReceiver();
  harness = await startHarness({ ports: [receiver.port], attemptTimeoutMs: 2_000 });
});

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

/** Until the ingress queue holds nothing, visible or in flight: every publish has been processed. */
const drained = () =>
  waitFor(
    'the ingress queue to drain',
    async () => (await messagesLeft(harness.sqs, harness.resources.queueUrl)) === 0,
    {
      timeoutMs: 60_000,
    },
  );

describe('an event published again with the same eventId', () => {
  it('reaches the receiver once, under one delivery id, with one attempt logged, whatever occurredAt says', async () => {
    const app = id('app');
    const con = await harness.createConnection({ applicationId: app, url: receiver.url });
    const first = userIdentified(app, { occurredAt: '2026-11-27T10:00:00.000Z' });
    await harness.publish(first);
    const [req] = await receiver.waitFor(1);
    const deliveryId = req!.headers['x-service-delivery'];
    await waitFor(
      'the first attempt to be logged',
      async () => (await harness.attemptsOf(con.connectionId)).length === 1,
    );
    // A retried upstream Lambda publishes it again: a later occurredAt, then the first one again.
    await harness.publish({ ...first, occurredAt: '2026-11-27T10:00:07.500Z' });
    await harness.publish({ ...first });
    await drained();
    // A later event of the same user still goes out: the receiver is not simply stuck.
    const next = userIdentified(app);
    await harness.publish(next);
    await receiver.waitFor(2);
    await drained();
    const received = receiver.requests.map((r) => JSON.parse(r.body).timestamp);
    expect(received).toEqual([first.occurredAt, next.occurredAt]);
    const attempts = await harness.attemptsOf(con.connectionId);
    expect(attempts.filter((a) => a.eventId === first.eventId).map((a) => [a.deliveryId, a.attempt])).toEqual(
      [[deliveryId, 1]],
    );
  });
});
