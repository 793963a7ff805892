/**
 * The one error base of the project, and its four stages. Every error the code throws is a
 * {@link WebhookError}: a stable `code` (snake_case, safe to log and to match on), a message
 * for people, and the `cause` it wraps. Its stage says who has to act:
 *
 * - `input`: what a publisher, a caller, a browser or an operator sent breaks a rule
 *   (a payload, a message, a connection, a request); fix the input.
 * - `configuration`: the stack, its props or its environment are wrong; fix the deployment.
 * - `infrastructure`: a dependency (DynamoDB, SQS, Secrets Manager, KMS, the invocation's time)
 *   failed; the work is retried (SQS redelivers it), never dropped.
 * - `receiver`: the customer's endpoint misbehaved or is refused by the egress policy; the
 *   attempt is logged with its outcome.
 *
 * Subclasses set `name` and carry the ids an operator needs. Messages never contain a secret
 * or a custom header value (docs/security.md).
 */
export type ErrorStage = 'input' | 'configuration' | 'infrastructure' | 'receiver';

export interface WebhookErrorOptions {
  cause?: unknown;
}

export abstract class WebhookError extends Error {
  abstract readonly stage: ErrorStage;
  constructor(
    /** What went wrong, as a stable snake_case word a program can match on. */
    readonly code: string,
    message: string,
    options: WebhookErrorOptions = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'WebhookError';
  }
}

/** What a publisher, a caller, a browser or an operator sent breaks a rule. */
export abstract class InputError extends WebhookError {
  readonly stage = 'input';
}

/** The stack, its props or its environment are wrong. */
export abstract class ConfigurationError extends WebhookError {
  readonly stage = 'configuration';
}

/** The customer's endpoint misbehaved, or the egress policy refused it. */
export abstract class ReceiverError extends WebhookError {
  readonly stage = 'receiver';
}

/** Input that breaks a payload, envelope or connection rule; `field` names the culprit. */
export class ValidationError extends InputError {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super('invalid_input', `${field}: ${problem}`);
    this.name = 'ValidationError';
  }
}

/**
 * A page cursor that is not one this code wrote for the listing asked for (core/cursor.ts):
 * garbled, forged, or another listing's. The API answers 400 `invalid_parameter`.
 */
export class InvalidCursorError extends ValidationError {
  constructor(problem: string) {
    super('cursor', problem);
    this.name = 'InvalidCursorError';
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
export class PoisonMessageError extends InputError {
  constructor(
    message: string,
    /** `invalid_payload` when the user or application data broke a rule, else `invalid_message`. */
    readonly reason: 'invalid_message' | 'invalid_payload' = 'invalid_message',
    options?: WebhookErrorOptions,
  ) {
    super(reason, message, options);
    this.name = 'PoisonMessageError';
  }
}

/**
 * A dependency (DynamoDB, SQS, Secrets Manager, KMS) failed, named by the operation that
 * failed. The record is reported in `batchItemFailures` so SQS redelivers it; never a reason
 * to dead-letter. The base of every error of the infrastructure stage.
 */
export class InfrastructureError extends WebhookError {
  readonly stage = 'infrastructure';
  constructor(
    readonly operation: string,
    readonly ids: { connectionId?: string; deliveryId?: string; attempt?: number },
    options: WebhookErrorOptions & { code?: string; message?: string } = {},
  ) {
    super(
      options.code ?? 'dependency_failed',
      options.message ?? `${operation} failed${describeIds(ids)}`,
      options,
    );
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
export class DeadlineError extends InfrastructureError {
  constructor(readonly remainingMs: number) {
    super(
      'invocation',
      {},
      {
        code: 'deadline_near',
        message: `only ${remainingMs} ms left in this invocation; the record is left for SQS to redeliver`,
      },
    );
    this.name = 'DeadlineError';
  }
}

function describeIds(ids: { connectionId?: string; deliveryId?: string; attempt?: number }): string {
  const parts = Object.entries(ids)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
