/**
 * Local mode's dispatcher function (local/function.ts, as `npm start` runs it) with one receiver
 * that never answers: its deliveries hang until the attempt timeout, each in an invocation of its
 * own, and the other connections' deliveries go on meanwhile, as on Lambda, where every
 * concurrent invocation is a container of its own. Here they share one process, so nothing of
 * one invocation (its attempt slots, `WEBHOOKS_BATCH_CONCURRENCY`) may hold up another.
 */

import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, loadConfig } from '../../lambdas/config';
import { WebhookManagement } from '../../lambdas/management';
import type { LocalResources } from '../../local/bootstrap';
import { localEnv } from '../../local/bootstrap';
import { type LocalFunction, startLocalFunction } from '../../local/function';
import { CountingLog } from '../support/dispatcher';
import { createQueues, servicesFromEnv } from '../support/emulators';
import { id, userIdentified } from '../support/fixtures';
import { testPki } from '../support/pki';
import { type Receiver, startReceiver } from '../support/receivers';

/** Deliveries in flight hanging on the silent receiver: more than one invocation's attempt slots. */
const HANGING = 3;
const BATCH_CONCURRENCY = 2;

let hung: Receiver;
let healthy: Receiver;
let resources: LocalResources;
let management: WebhookManagement;
let fn: LocalFunction | undefined;
const sqs = new SQSClient({});

beforeAll(async () => {
  // Takes every request and never answers it.
  hung = await startReceiver(() => {});
  healthy = await startReceiver();
  const services = servicesFromEnv();
  resources = await createQueues(services, { visibilityTimeoutSeconds: 60, label: 'hung' });
  const ports = [hung.port, healthy.port];
  management = new WebhookManagement({ resources, allowLoopback: true, allowedPorts: ports });
  const config = loadConfig({
    ...localEnv(services.endpoints, resources, services.region),
    [ENV.allowLoopback]: 'true',
    [ENV.allowedPorts]: ports.join(','),
    // Shortened from 30 s; still far longer than the test waits for the healthy delivery.
    [ENV.attemptTimeoutMs]: '10000',
    [ENV.batchConcurrency]: String(BATCH_CONCURRENCY),
  });
  fn = startLocalFunction({
    config,
    wiring: { ca: [testPki().caPem], deps: { log: new CountingLog() } },
    sqs,
    queues: [
      { queueUrl: resources.queueUrl, queueArn: resources.queueArn },
      { queueUrl: resources.retryQueueUrl, queueArn: resources.retryQueueArn },
    ],
    // Local mode's: one attempt and the dispatcher's margin fit.
    functionTimeoutMs: 60_000,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
});

afterAll(async () => {
  // Dropping the silent receiver's connections ends its attempts at once, so stop() is quick.
  await hung?.close();
  await fn?.stop();
  await fn?.close();
  await healthy?.close();
  sqs.destroy();
});

const publish = (event: unknown) =>
  sqs.send(new SendMessageCommand({ QueueUrl: resources.queueUrl, MessageBody: JSON.stringify(event) }));

it('delivers to a healthy receiver within 2 s while another hangs in several invocations at once', async () => {
  const slowApp = id('app');
  const fastApp = id('app');
  await management.connections.create({ applicationId: slowApp, name: 'Hangs', url: hung.url });
  await management.connections.create({ applicationId: fastApp, name: 'Answers', url: healthy.url });

  // One at a time, so that each is a batch (an invocation) of its own, all of them in flight.
  for (let n = 1; n <= HANGING; n++) {
    await publish(userIdentified(slowApp));
    await hung.waitFor(n, 3_000);
  }
  const published = Date.now();
  await publish(userIdentified(fastApp));
  const [delivered] = await healthy.waitFor(1, 2_000);
  expect(delivered!.at - published).toBeLessThan(2_000);
  // Still hanging: none of them had ended and freed anything.
  expect(hung.requests).toHaveLength(HANGING);
  // An instance of the function (its wiring) per invocation in flight, as a container each on Lambda.
  expect(fn!.instances()).toBe(HANGING + 1);
});
