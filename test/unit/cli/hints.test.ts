/**
 * What the CLI tells an operator to run next: written as this invocation would run it
 * (`npx webhooks --local …` in local mode), naming the ids the operator gave, and saying
 * where a delivery stands when `attempts retry` has nothing to retry.
 */

import type { AttemptRecord } from '../../../lambdas/core/types';
import { NotFoundError, type WebhookManagement } from '../../../lambdas/management';
import { runCli } from '../../support/cli-run';
import { connection } from '../../support/fixtures';

const CONNECTION_ID = 'con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B';
const DELIVERY_ID = `dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_${CONNECTION_ID}`;
const CONNECTION = connection(CONNECTION_ID);

const attempt = (fields: Partial<AttemptRecord> = {}): AttemptRecord => ({
  deliveryId: DELIVERY_ID,
  attempt: 1,
  eventId: 'evt_1',
  connectionId: CONNECTION_ID,
  applicationId: 'app_1',
  userId: 'usr_1',
  event: 'user.identified',
  method: 'POST',
  target: 'https://a.example/hooks',
  requestedAt: '2026-11-21T15:00:00.000Z',
  durationMs: 5,
  outcome: 'delivered',
  statusCode: 200,
  final: true,
  expiresAt: 0,
  ...fields,
});

async function cli(argv: string[], management: Partial<Record<keyof WebhookManagement, unknown>>) {
  return runCli(argv, { env: {}, open: async () => management as unknown as WebhookManagement });
}

/** A management library whose parked table does not hold the delivery. */
const notParked = (attempts: AttemptRecord[]) => ({
  retryDelivery: async () => {
    throw new NotFoundError('delivery', DELIVERY_ID);
  },
  attempts: { ofDelivery: async () => attempts },
});

describe('attempts retry of a delivery that is not parked', () => {
  it('says the delivery was delivered, not that it does not exist, and points to attempts resend', async () => {
    const result = await cli(['--local', 'attempts', 'retry', DELIVERY_ID], notParked([attempt()]));
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('does not exist');
    // Only a delivery the attempt log does not know either "does not exist".
    const unknown = await cli(['attempts', 'retry', DELIVERY_ID], notParked([]));
    expect(unknown.stderr).toBe(`webhooks: delivery ${DELIVERY_ID} does not exist\n`);
    expect(result.stderr).toBe(
      `webhooks: ${DELIVERY_ID} is not parked, so there is nothing to retry (attempts retry sends parked deliveries only): delivered on attempt 1. To send it again anyway, as its next attempt: npx webhooks --local attempts resend ${DELIVERY_ID}\n`,
    );
  });

  it('says a delivery still being retried needs nothing', async () => {
    const retrying = attempt({
      outcome: 'http_error',
      statusCode: 503,
      final: false,
      nextAttemptAt: '2026-11-21T15:00:02.000Z',
    });
    const result = await cli(['attempts', 'retry', DELIVERY_ID], notParked([retrying]));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'is not parked, so there is nothing to retry: it is retrying: attempt 2 due',
    );
    expect(result.stderr).toContain(`Follow it: npx webhooks attempts get ${DELIVERY_ID}`);
    expect(result.stderr).not.toContain('resend');
  });
});

describe('attempts get, in local mode', () => {
  it('writes every command in its state line as local mode runs it', async () => {
    const failed = [1, 2, 3, 4].map((n) =>
      attempt({ attempt: n, outcome: 'http_error', statusCode: 503, final: n === 4 }),
    );
    const result = await cli(['--local', 'attempts', 'get', DELIVERY_ID], {
      attempts: { ofDelivery: async () => failed },
      parked: { get: async () => ({ deliveryId: DELIVERY_ID, reason: 'exhausted' }) },
    });
    expect(result.code).toBe(0);
    const state = /^\s*state\s+(.*)$/m.exec(result.stdout)?.[1];
    expect(state).toBe(
      `failed after 4 attempts; parked for its connection (npx webhooks --local connections parked ${CONNECTION_ID}; retry it: npx webhooks --local attempts retry ${DELIVERY_ID})`,
    );
    expect(result.stdout).not.toMatch(/[(:] webhooks /);
  });
});

describe('connections list and get', () => {
  it('suggests creating a connection for the application asked about, by its id', async () => {
    const result = await cli(['--local', 'connections', 'list', '--application', 'app_nope'], {
      connections: { list: async () => [] },
    });
    expect(result.stdout).toContain(
      'No connections for app_nope. Add one with:\n  npx webhooks --local connections create --application app_nope --name … --url https://…',
    );
    expect(result.stdout).not.toContain('app_…');
  });

  const rateLimit = async (argv: string[], defaultRateLimit?: number) => {
    const result = await cli([...argv, 'connections', 'get', CONNECTION_ID], {
      defaultRateLimit,
      connections: { get: async () => CONNECTION },
    });
    return /^\s*rate limit\s+(.*)$/m.exec(result.stdout)?.[1];
  };

  it("prints local mode's default rate limit for a connection with none of its own", async () => {
    expect(await rateLimit(['--local'], 25)).toBe(
      "none of its own: local mode's default applies, 25 deliveries/s",
    );
    expect(await rateLimit(['--local'])).toBe(
      'none of its own, and local mode has no default (WEBHOOKS_DEFAULT_RATE_LIMIT is not set): no limit',
    );
  });

  it("prints a deployed stack's default when its outputs name one, and says it may have one otherwise", async () => {
    expect(await rateLimit([], 40)).toBe("none of its own: the stack's default applies, 40 deliveries/s");
    expect(await rateLimit([])).toBe("none of its own (the stack's default, if set)");
  });
});

describe('usage hints', () => {
  it('name the command help as it is run: npx webhooks <command> --help', async () => {
    const update = await cli(['connections', 'update', CONNECTION_ID], {});
    expect(update.code).toBe(2);
    expect(update.stderr).toMatch(/; see: npx webhooks connections update --help\n$/);
    const redrive = await cli(['dlq', 'redrive'], {});
    expect(redrive.stderr).toMatch(/; see: npx webhooks dlq redrive --help\n$/);
  });
});
