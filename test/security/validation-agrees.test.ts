/**
 * Adversarial suite, validation that agrees with what happens later (issue 11): input that
 * would fail at delivery, or be silently changed on the way, is refused where it enters,
 * with the field named.
 */

import { validateUrl } from '../../lambdas/core/connection';
import { createDispatcher } from '../../lambdas/core/dispatch';
import { ValidationError } from '../../lambdas/core/errors';
import { validateCustomHeaders } from '../../lambdas/core/headers';
import { WebhookManagement } from '../../lambdas/management';
import { connection } from '../support/fixtures';
import { memoryPorts } from '../support/memory';

const POLICY = { allowedPorts: [443], allowLoopback: false };

describe('URL length is checked on the normalised URL', () => {
  it('a URL short as typed but over 2048 characters once percent-encoded is refused at save', () => {
    const raw = `https://example.com/${'é'.repeat(700)}`;
    expect(raw.length).toBeLessThan(2048);
    expect(() => validateUrl(raw, POLICY)).toThrow(/url: must be at most 2048 characters once normalised/);
  });

  it('spaces and quotes that grow threefold when percent-encoded count as sent', () => {
    const raw = `https://example.com/q?a=${' "'.repeat(400)}`;
    expect(raw.length).toBeLessThan(2048);
    expect(() => validateUrl(raw, POLICY)).toThrow(ValidationError);
  });

  it('every URL accepted at save passes the same check at delivery (it is stored normalised)', () => {
    const accepted = validateUrl(`https://example.com/${'é'.repeat(300)}`, POLICY);
    expect(() => validateUrl(accepted.href, POLICY)).not.toThrow();
  });
});

describe('reserved names are refused as header names, with a clear error', () => {
  it.each(['__proto__', 'constructor', 'prototype', 'Constructor'])('%s', (name) => {
    const headers = JSON.parse(`{"${name}":"x","X-Other":"y"}`);
    expect(() => validateCustomHeaders(headers, 'X-Service')).toThrow(
      new RegExp(`headers\\.${name}: is a reserved name`),
    );
  });
});

describe('enabled must be a boolean', () => {
  const management = new WebhookManagement({
    resources: {
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/1/in',
      retryQueueUrl: 'https://sqs.us-east-1.amazonaws.com/1/retry',
      dlqUrl: 'https://sqs.us-east-1.amazonaws.com/1/dlq',
      connectionsTable: 't',
      attemptsTable: 'a',
      secretPrefix: 'p/',
    },
  });

  it.each(['false', 0, 'no', null])(
    'enabled %p is refused at create, before anything is saved',
    async (enabled) => {
      await expect(
        management.connections.create({
          applicationId: 'app_1',
          name: 'x',
          url: 'https://example.com/hooks',
          enabled: enabled as never,
        }),
      ).rejects.toThrow(/enabled: must be true or false/);
    },
  );

  it('a stored "false" string is never read as enabled by the dispatcher', async () => {
    const stored = connection('con_a', { enabled: 'false' as never });
    const f = memoryPorts([stored]);
    const dispatcher = createDispatcher(f.deps, {
      headerPrefix: 'X-Service',
      attemptTtlDays: 30,
      concurrency: 1,
      egress: POLICY,
    });
    const event = {
      v: 1,
      type: 'event',
      eventId: 'evt_1',
      event: 'user.identified',
      occurredAt: '2026-11-21T14:53:00.123Z',
      user: { id: 'usr_1' },
      application: { id: 'app_1', name: 'A' },
    };
    await dispatcher.processBatch([{ messageId: 'a', body: JSON.stringify(event) }], {
      remainingMs: () => 60_000,
    });
    await dispatcher.processBatch(
      [{ messageId: 'b', body: JSON.stringify({ ...event, eventId: 'evt_2', connectionIds: ['con_a'] }) }],
      { remainingMs: () => 60_000 },
    );
    expect(f.state.sent).toHaveLength(0);
    // The explicitly targeted delivery is parked as connection_disabled, never sent.
    expect(f.state.parked.map((d) => d.reason)).toEqual(['connection_disabled']);
  });
});
