/**
 * How an in-memory port plays its service being down: a test says which operations fail, and
 * each call of one rejects as the SDK would, with an error named like a service's.
 */

/** Whether `operation` (a method name of the port) fails now. */
export type Outage = (operation: string) => boolean;

export const noOutage: Outage = () => false;

/** Rejects the call when the outage covers it. */
export function checkOutage(outage: Outage, operation: string, service: string): void {
  if (outage(operation)) {
    throw Object.assign(new Error(`${service} is unavailable`), { name: 'ServiceUnavailable' });
  }
}
