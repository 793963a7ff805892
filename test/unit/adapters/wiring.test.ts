import { DynamoAttempts } from '../../../lambdas/adapters/dynamodb/attempts';
import { HttpsSender } from '../../../lambdas/adapters/http/sender';
import { wireDispatcher } from '../../../lambdas/backend';
import { ENV, loadConfig } from '../../../lambdas/config';
import { MINIMAL_DISPATCHER_ENV } from '../../support/fixtures';

const minimal = MINIMAL_DISPATCHER_ENV;

describe('wireDispatcher', () => {
  it.each([
    [undefined, 10],
    ['25', 25],
  ])(
    'keeps as many idle connections per receiver as attempts may be in flight (batch concurrency %s): a request that meets only dead pooled sockets reaches a new one (D31)',
    async (concurrency, idle) => {
      const wired = wireDispatcher(
        loadConfig({ ...minimal, ...(concurrency ? { [ENV.batchConcurrency]: concurrency } : {}) }),
      );
      try {
        expect(wired.deps.sender).toBeInstanceOf(HttpsSender);
        expect((wired.deps.sender as HttpsSender).maxIdlePerOrigin).toBe(idle);
      } finally {
        await wired.close();
      }
    },
  );
});

describe('wireDispatcher: delivery search', () => {
  it.each([
    [undefined, true],
    ['false', false],
  ])(
    'writes the lookup items of each delivery unless told not to (WEBHOOKS_DELIVERY_SEARCH %s)',
    async (value, on) => {
      const wired = wireDispatcher(
        loadConfig({ ...minimal, ...(value ? { [ENV.deliverySearch]: value } : {}) }),
      );
      try {
        expect(wired.deps.attemptLog).toBeInstanceOf(DynamoAttempts);
        expect((wired.deps.attemptLog as DynamoAttempts).lookups).toBe(on);
      } finally {
        await wired.close();
      }
    },
  );
});
