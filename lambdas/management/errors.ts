/** Errors of the management API: what an operator or a dashboard backend can act on. */

import { WebhookError } from '../core/errors';

export { ValidationError } from '../core/errors';

export class NotFoundError extends WebhookError {
  constructor(
    readonly kind: 'connection' | 'delivery' | 'secret',
    readonly id: string,
  ) {
    super(`${kind} ${id} does not exist`);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends WebhookError {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}
