/**
 * A rate-limited connection on the emulators, through the production wiring under the runner
 * with 4 pollers per queue (test/support/pipeline.ts): a burst is spread over the seconds the
 * limit needs, each event arrives once with one attempt record, the waiting deliveries are
 * deferred (a DEBUG line each, no attempt used) and nothing reaches the dead-letter queue.
 */

import { WebhookManagement } from '../../lambdas/management';
import { CountingLog } from '../support/dispatcher';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { messagesLeft } from '../support/queries';
import { type Receiver, startReceiver } from '../support/receivers';

let receiver: Receiver;
let harness: Harness;
const log = new CountingLog();

beforeAll(async () => {
  receiver = await startReceiver();
  harness = await startHarness({ ports: [receiver.port], attemptTimeoutMs: 5_000, log });
});

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

it('spreads a burst of 12 to a connection limited to 3/s over at least 3 s, each once, none dead-lettered', async () => {
  const app = id('app');
  const con = await harness.createConnection({ applicationId: app, url: receiver.url, rateLimit: 3 });
  const events = Array.from({ length: 12 }, () => userIdentified(app));
  await harness.publishBatch(events.slice(0, 10));
  await harness.publishBatch(events.slice(10));
  const requests = await receiver.waitFor(12, 60_000);
  // Anything sent twice would arrive within a few more seconds.
  await new Promise((r) => setTimeout(r, 2_000));
  expect(receiver.requests).toHaveLength(12);
  const deliveries = new Set(requests.map((r) => r.headers['x-service-delivery']));
  expect(deliveries.size).toBe(12);
  expect(requests.every((r) => r.headers['x-service-attempt'] === '1')).toBe(true);
  const times = requests.map((r) => r.at);
  // 12 at 3 a second need 4 windows: at least 3 s from the first arrival to the last.
  expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(2_900);
  const deferrals = log.counts['debug: delivery deferred: waiting for the rate limit'] ?? 0;
  expect(deferrals).toBeGreaterThanOrEqual(1);
  // The console's live state, read back from the counter items the dispatchers wrote: every
  // deferral and every send of the last minute, and no write of its own.
  const management = new WebhookManagement({ resources: harness.resources });
  const activity = await management.rateLimitActivity(con.connectionId);
  expect(activity).toMatchObject({ rateLimit: 3, source: 'connection' });
  // Every count is a send, a deferral, or a first count the limiter took again (it was far
  // behind its slot or came back late), which the dispatcher logs.
  const countedAgain = log.counts['debug: rate limit: counted again in the next second'] ?? 0;
  expect(activity.sent + activity.deferred).toBe(12 + deferrals + countedAgain);
  expect(activity.sent).toBeGreaterThanOrEqual(12);
  expect(activity.deferred).toBeGreaterThanOrEqual(deferrals);

  const attempts = await harness.attemptsOf(con.connectionId);
  expect(attempts).toHaveLength(12);
  expect(attempts.every((a) => a.attempt === 1 && a.outcome === 'delivered')).toBe(true);
  expect(await messagesLeft(harness.sqs, harness.resources.dlqUrl)).toBe(0);
});
