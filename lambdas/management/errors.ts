/** Errors of the management API: what an operator or a dashboard backend can act on. */

import { InputError } from '../core/errors';

export { ValidationError } from '../core/errors';

export class NotFoundError extends InputError {
  constructor(
    readonly kind: 'connection' | 'delivery' | 'secret',
    readonly id: string,
  ) {
    super('not_found', `${kind} ${id} does not exist`);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends InputError {
  constructor(message: string) {
    super('conflict', message);
    this.name = 'ConflictError';
  }
}
