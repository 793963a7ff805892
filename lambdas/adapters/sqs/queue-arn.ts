/** Telling queues apart by ARN when only their URLs are configured. */

/**
 * The end of a queue's ARN (`:<account>:<name>`) from its URL (`…/<account>/<name>`).
 * Queue names are unique within an account and region, and an event source mapping (or a
 * DLQ's redrive policy) joins queues of one region.
 * @throws Error when the URL has no account and name path.
 */
export function queueArnSuffix(queueUrl: string): string {
  const [account, name] = new URL(queueUrl).pathname.split('/').filter(Boolean).slice(-2);
  if (!account || !name) throw new Error(`not an SQS queue URL: ${queueUrl}`);
  return `:${account}:${name}`;
}

/** True when `arn` is the ARN of the queue at `queueUrl` (see {@link queueArnSuffix}). */
export function isQueueArn(arn: string | undefined, queueUrl: string): boolean {
  return Boolean(arn?.startsWith('arn:') && arn.endsWith(queueArnSuffix(queueUrl)));
}
