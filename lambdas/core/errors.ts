/**
 * Errors of the delivery core. One base class; subclasses set `name` and carry the
 * ids an operator needs. Messages never contain a secret or a custom header value.
 */
export class WebhookError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookError';
  }
}

/** Input that breaks a payload, envelope or connection rule; `field` names the culprit. */
export class ValidationError extends WebhookError {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'ValidationError';
  }
}

/** A destination the egress policy refuses (scheme, address, port): permanent, outcome `blocked`. */
export class DestinationRefusedError extends ValidationError {
  constructor(problem: string) {
    super('url', problem);
    this.name = 'DestinationRefusedError';
  }
}

/** A queue message that can never be processed (bad JSON, unknown version, invalid payload). */
export class PoisonMessageError extends WebhookError {
  constructor(
    message: string,
    /** `invalid_payload` when the user or application data broke a rule, else `invalid_message`. */
    readonly reason: 'invalid_message' | 'invalid_payload' = 'invalid_message',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PoisonMessageError';
  }
}

/**
 * A dependency (DynamoDB, SQS, Secrets Manager) failed. The record is reported in
 * `batchItemFailures` so SQS redelivers it; never a reason to dead-letter.
 */
export class InfrastructureError extends WebhookError {
  constructor(
    readonly operation: string,
    readonly ids: { connectionId?: string; deliveryId?: string; attempt?: number },
    options?: { cause?: unknown },
  ) {
    super(`${operation} failed${describeIds(ids)}`, options);
    this.name = 'InfrastructureError';
  }
}

/**
 * Runs a port call; whatever it throws (or rejects with) becomes an InfrastructureError naming
 * the operation and the ids, so the batch reports the record for redelivery.
 */
export function infra<T>(
  operation: string,
  ids: InfrastructureError['ids'],
  run: () => Promise<T>,
): Promise<T> {
  try {
    return run().catch((cause: unknown) => {
      throw new InfrastructureError(operation, ids, { cause });
    });
  } catch (cause) {
    return Promise.reject(new InfrastructureError(operation, ids, { cause }));
  }
}

/** Not enough time left in the invocation to start an attempt safely. */
export class DeadlineError extends WebhookError {
  constructor(readonly remainingMs: number) {
    super(`only ${remainingMs} ms left in this invocation; the record is left for SQS to redeliver`);
    this.name = 'DeadlineError';
  }
}

function describeIds(ids: { connectionId?: string; deliveryId?: string; attempt?: number }): string {
  const parts = Object.entries(ids)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
