/**
 * The operational events port's contract (core/ports.ts OperationalEvents), run against
 * test/support/memory/events.ts and lambdas/adapters/sns/operational-events.ts on fauxqs' SNS,
 * each test on a topic of its own with a queue subscribed (raw delivery), as local mode does.
 * What was published is read back from where it went: the memory list, or the queue.
 */

import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SnsOperationalEvents } from '../../lambdas/adapters/sns/operational-events';
import { type ConnectionHealth, INITIAL_HEALTH } from '../../lambdas/core/health';
import { type OperationalEvent, operationalEvent } from '../../lambdas/core/parking';
import type { OperationalEvents } from '../../lambdas/core/ports';
import { createQueue, uniqueName } from '../support/emulators';
import { id } from '../support/fixtures';
import { MemoryEvents } from '../support/memory';
import { takeMessages } from '../support/queries';
import { contract } from './contract';

interface EventsUnderTest {
  events: OperationalEvents;
  /** The events that reached the subscribers (exactly `count` expected), parsed. */
  received(count: number): Promise<unknown[]>;
}

const sqs = new SQSClient({});
const sns = new SNSClient({ endpoint: process.env.AWS_ENDPOINT_URL_SQS });
afterAll(() => {
  sqs.destroy();
  sns.destroy();
});

function onSns(): EventsUnderTest {
  const made = (async () => {
    const name = uniqueName('events', 'ct');
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: name }));
    const queue = await createQueue(sqs, `${name}-sub`);
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    return { events: new SnsOperationalEvents({ topicArn: TopicArn!, client: sns }), queueUrl: queue.url };
  })();
  return {
    events: { publish: async (event) => (await made).events.publish(event) },
    received: async (count) => takeMessages(sqs, (await made).queueUrl, count, 10_000),
  };
}

function inMemory(): EventsUnderTest {
  const events = new MemoryEvents();
  return { events, received: async () => [...events.events] };
}

function transition(type: OperationalEvent['type'], name = 'CRM'): OperationalEvent {
  const connection = { connectionId: id('con'), applicationId: id('app'), name };
  const health: ConnectionHealth =
    type === 'connection.recovered'
      ? { ...INITIAL_HEALTH }
      : { state: type === 'connection.failing' ? 'failing' : 'disabled', consecutiveFailures: 3, version: 3 };
  return operationalEvent(type, connection, health, '2026-11-25T12:00:00.000Z');
}

contract<EventsUnderTest>('operational events', { memory: inMemory, emulators: onSns }, (make) => {
  it('delivers each published event once, whole, as the JSON of the event', async () => {
    const port = make();
    const failing = transition('connection.failing');
    await port.events.publish(failing);
    expect(await port.received(1)).toEqual([failing]);
  });

  it('keeps every transition of a connection, untrusted names included, as text', async () => {
    const port = make();
    const sent = [
      transition('connection.failing', '<b>Ünïcode</b> 🚀 "quoted"'),
      transition('connection.disabled'),
      transition('connection.recovered'),
    ];
    for (const event of sent) await port.events.publish(event);
    const received = (await port.received(3)) as OperationalEvent[];
    expect([...received].sort((a, b) => a.type.localeCompare(b.type))).toEqual(
      [...sent].sort((a, b) => a.type.localeCompare(b.type)),
    );
  });
});
