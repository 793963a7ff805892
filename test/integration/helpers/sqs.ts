/** Throwaway queues for tests that must not share the stack's delivery queue. */
import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type QueueAttributeName,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { localQueueUrl } from '../../../local/bootstrap';

export interface TestQueue {
  readonly url: string;
  readonly arn: string;
}

/** A unique queue name for this run, e.g. `t-runner-1a2b3c4d`. */
export const uniqueName = (label: string) => `t-${label}-${randomBytes(4).toString('hex')}`;

/** Creates a queue on the emulator named by `AWS_ENDPOINT_URL_SQS` and returns its URL (on that origin) and ARN. */
export async function createTestQueue(
  sqs: SQSClient,
  name: string,
  attributes: Partial<Record<QueueAttributeName, string>> = {},
): Promise<TestQueue> {
  const endpoint = process.env.AWS_ENDPOINT_URL_SQS;
  if (!endpoint)
    throw new Error('AWS_ENDPOINT_URL_SQS is not set: run through the integration project (global-setup)');
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const url = localQueueUrl(endpoint, QueueUrl!);
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes!.QueueArn! };
}
