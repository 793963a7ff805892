import { deliveryState, formatTime, healthParts, healthSummary, timeZoneName } from '../../../console/format';
import type { Health } from '../../../console/types';

const AT = '2026-11-22T10:00:00.000Z';

describe('health in words', () => {
  it('never says deliveries succeed: healthy only means not failing', () => {
    const clean: Health = { state: 'healthy', consecutiveFailures: 0 };
    expect(healthSummary(clean)).toBe('No failed deliveries in a row');
    expect(healthSummary({ state: 'healthy', consecutiveFailures: 2, lastFailureAt: AT })).toMatch(
      /^Not failing yet: 2 deliveries in a row failed on every attempt; Last failure: /,
    );
    for (const parked of [true, false, undefined])
      for (const h of [clean, { ...clean, consecutiveFailures: 1 }])
        expect(healthSummary(h, parked)).not.toMatch(/succeed/i);
  });

  it('says when deliveries are parked, whatever the state', () => {
    expect(healthSummary({ state: 'healthy', consecutiveFailures: 0 }, true)).toBe(
      'No failed deliveries in a row; Parked: some deliveries, waiting to be sent again',
    );
    expect(healthSummary({ state: 'failing', consecutiveFailures: 3 }, true)).toBe(
      'Failing: 3 deliveries in a row failed on every attempt; Parked: some deliveries, waiting to be sent again',
    );
  });

  it('keeps the failing and disabled wording, with since when', () => {
    expect(healthSummary({ state: 'disabled', consecutiveFailures: 1, failingSince: AT })).toMatch(
      /^Disabled after failing: 1 delivery in a row failed on every attempt; Failing since: /,
    );
  });

  it('lists short labelled parts instead of one long sentence', () => {
    const h: Health = {
      state: 'failing',
      consecutiveFailures: 3,
      failingSince: AT,
      lastFailureAt: AT,
      lastSuccessAt: AT,
    };
    expect(healthParts(h, true)).toEqual([
      { label: 'State', value: 'Failing: 3 deliveries in a row failed on every attempt' },
      { label: 'Failing since', value: formatTime(AT) },
      { label: 'Parked', value: 'some deliveries, waiting to be sent again' },
      { label: 'Last failure', value: formatTime(AT) },
      { label: 'Last success after a failure', value: formatTime(AT) },
    ]);
  });
});

describe('times', () => {
  it('name their time zone', () => {
    expect(timeZoneName()).not.toBe('');
    expect(formatTime(AT).endsWith(` ${timeZoneName(new Date(AT))}`)).toBe(true);
  });
});

describe('deliveryState', () => {
  const a = (attempt: number, fields: Partial<Parameters<typeof deliveryState>[0][number]> = {}) => ({
    attempt,
    outcome: 'http_error' as const,
    final: false,
    ...fields,
  });
  it('says where a delivery stands from its last attempt', () => {
    expect(deliveryState([])).toBe('No attempts yet');
    expect(deliveryState([a(1), a(2, { outcome: 'delivered', final: true })])).toBe('Delivered on attempt 2');
    expect(deliveryState([a(1, { nextAttemptAt: AT })])).toMatch(/^Retrying: attempt 2 due /);
    expect(deliveryState([a(1), a(2), a(3), a(4, { final: true })])).toBe(
      'Not delivered: attempt 4 was its last; parked until sent again (Resend, or Recover on its connection)',
    );
    expect(deliveryState([a(4, { final: true, resentAs: 5 })])).toBe('Sent again: attempt 5 is queued');
    expect(deliveryState([a(1, { test: true, final: true })])).toBe('Test delivery, failed (not retried)');
  });
});
