/**
 * OperationalEvents on an SNS topic (docs/design.md §9): one message per transition, the event as
 * JSON, with a `type` message attribute so subscribers can filter (`connection.disabled`
 * only, say) without parsing. Nothing secret is in an event (core/parking.ts).
 */

import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { OperationalEvent } from '../../core/parking';
import type { OperationalEvents } from '../../core/ports';

export interface SnsOperationalEventsOptions {
  topicArn: string;
  /** An SNS client; one is built from the default chain when absent (docs/design.md §2, rule 2). */
  client?: SNSClient;
}

/** SNS subjects are limited to 100 characters of printable ASCII. */
const MAX_SUBJECT = 100;

export class SnsOperationalEvents implements OperationalEvents {
  private readonly client: SNSClient;
  readonly topicArn: string;

  constructor(options: SnsOperationalEventsOptions) {
    this.client = options.client ?? new SNSClient({});
    this.topicArn = options.topicArn;
  }

  async publish(event: OperationalEvent): Promise<void> {
    await this.client.send(
      new PublishCommand({
        TopicArn: this.topicArn,
        // Ids only: a connection name is user text and may hold anything.
        Subject: `${event.type} ${event.connectionId}`.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_SUBJECT),
        Message: JSON.stringify(event),
        MessageAttributes: {
          type: { DataType: 'String', StringValue: event.type },
          applicationId: { DataType: 'String', StringValue: event.applicationId },
        },
      }),
    );
  }
}

/** Several destinations at once (local mode: SNS, and the terminal and a file). */
export function allOf(...targets: OperationalEvents[]): OperationalEvents {
  return {
    async publish(event) {
      const results = await Promise.allSettled(targets.map((t) => t.publish(event)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
