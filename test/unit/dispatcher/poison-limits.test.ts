/**
 * Regressions found by the reliability harness (test/faults/poison.test.ts): poison that
 * is too big must still reach the dead-letter queue at once, with its reason, instead of
 * failing its record until SQS moves it there without one (5 receives later).
 */
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { MAX_DEAD_LETTER_SOURCE_BYTES } from '../../../lambdas/core/poison';
import { connection } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const plenty = { remainingMs: () => 90_000 };
/** SQS's largest message: what the DLQ of the stack and of local mode accept. */
const SQS_MAX_MESSAGE_BYTES = 1_048_576;

function setup() {
  const f = memoryPorts([connection('con_a')]);
  const dispatcher = createDispatcher(f.deps, {
    headerPrefix: 'X-Service',
    attemptTtlDays: 30,
    concurrency: 10,
    egress: { allowedPorts: [443], allowLoopback: false },
  });
  return { ...f, dispatcher };
}

function event(metadata: Record<string, string>) {
  return JSON.stringify({
    v: 1,
    type: 'event',
    eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
    event: 'user.identified',
    occurredAt: '2026-11-21T14:53:00.123Z',
    user: { id: 'usr_7', email: 'grace@example.com', metadata },
    application: { id: 'app_1', name: 'Acme' },
  });
}

describe('poison too big to deliver', () => {
  it('dead-letters an event whose body would exceed 256 KiB at once as invalid_payload, sending nothing', async () => {
    const { dispatcher, state } = setup();
    const { failures } = await dispatcher.processBatch(
      [{ messageId: 'm1', body: event({ blob: 'x'.repeat(300 * 1024) }) }],
      plenty,
    );
    expect(failures).toEqual([]);
    expect(state.sent).toEqual([]);
    expect(state.deadLetters).toHaveLength(1);
    expect(state.deadLetters[0]).toMatchObject({
      reason: 'invalid_payload',
      error: expect.stringContaining('body'),
    });
  });

  it('keeps the dead letter of a huge poison message within one SQS message: its first 256 KiB and its size', async () => {
    const { dispatcher, state } = setup();
    // 600 KB of quotes: each becomes 4 bytes once the dead letter quotes the text again.
    const text = event({ q: '"'.repeat(300_000) });
    const { failures } = await dispatcher.processBatch([{ messageId: 'm1', body: text }], plenty);
    expect(failures).toEqual([]);
    const [letter] = state.deadLetters;
    expect(letter).toMatchObject({ reason: 'invalid_payload', sourceBytes: Buffer.byteLength(text) });
    expect(text.startsWith(letter!.source!)).toBe(true);
    expect(Buffer.byteLength(letter!.source!)).toBeLessThanOrEqual(MAX_DEAD_LETTER_SOURCE_BYTES);
    expect(Buffer.byteLength(JSON.stringify(letter))).toBeLessThan(SQS_MAX_MESSAGE_BYTES);
  });

  it('keeps the whole text of an ordinary poison message, without a size', async () => {
    const { dispatcher, state } = setup();
    await dispatcher.processBatch([{ messageId: 'm1', body: '{"v":1,"type":"event", oops' }], plenty);
    expect(state.deadLetters[0]).toMatchObject({
      reason: 'invalid_message',
      source: '{"v":1,"type":"event", oops',
    });
    expect(state.deadLetters[0]).not.toHaveProperty('sourceBytes');
  });
});
