/**
 * The record trail is the ledger's evidence that SQS handed a record over again for a reason
 * not the product's fault (test/support/record-trail.ts). It must not turn a record the
 * product left for no good reason into an excuse. Pure: no services.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { BatchReport } from '../../local/runner';
import { RecordTrail } from '../support/record-trail';

const record = (messageId: string, body: object) => ({ messageId, body: JSON.stringify(body) }) as SQSRecord;
const EVENT = record('m-event', { type: 'event', eventId: 'evt_1' });
const RETRY = record('m-retry', { type: 'delivery', deliveryId: 'dlv_2', attempt: 2 });
const LATE = record('m-late', { type: 'delivery', deliveryId: 'dlv_3', attempt: 1 });
const SLOW = record('m-slow', { type: 'delivery', deliveryId: 'dlv_4', attempt: 3 });
const ONCE = record('m-once', { type: 'delivery', deliveryId: 'dlv_5', attempt: 1 });

function run(trail: RecordTrail, records: SQSRecord[], report: Partial<BatchReport>) {
  void trail.wrap(async () => {})({ Records: records } as SQSEvent, {} as Context, () => {});
  trail.noteBatch({
    messageIds: records.map((r) => r.messageId),
    outcome: 'ok',
    failed: [],
    durationMs: 1,
    ...report,
  });
}

const failedLine = (messageId: string, errorName: string, error: string) => ({
  at: 0,
  level: 'error',
  message: 'record failed; SQS will redeliver it',
  fields: { messageId, errorName, error },
});

it('names a record received again after a timeout, an infrastructure error or its visibility timeout', () => {
  const trail = new RecordTrail();
  trail.noteLog(
    failedLine(
      'm-retry',
      'InfrastructureError',
      'InfrastructureError: scheduler.schedule failed (deliveryId dlv_2) <- ServiceUnavailable: SQS is unavailable (injected fault: x)',
    ),
  );
  run(trail, [RETRY, ONCE], { outcome: 'partial', failed: ['m-retry'] });
  run(trail, [LATE], { outcome: 'timeout', failed: ['m-late'] });
  run(trail, [SLOW], {});
  run(trail, [RETRY, LATE, SLOW], {});
  expect(trail.redelivered()).toEqual([
    {
      deliveryId: 'dlv_2',
      attempt: 2,
      label: 'its record was redelivered (scheduler.schedule failed, injected): attempt sent again',
    },
    {
      deliveryId: 'dlv_3',
      attempt: 1,
      label:
        'its record was redelivered (its invocation timed out on the loaded machine): attempt sent again',
    },
    {
      deliveryId: 'dlv_4',
      attempt: 3,
      label:
        'its record was redelivered (SQS delivered it again: its visibility timeout ran out before its batch settled): attempt sent again',
    },
  ]);
});

it('gives no excuse for a record left for a near deadline, a bug, or a handler that threw', () => {
  const trail = new RecordTrail();
  trail.noteLog(
    failedLine('m-event', 'TypeError', "TypeError: cannot read properties of undefined (reading 'id')"),
  );
  trail.noteLog(failedLine('m-retry', 'DeadlineError', 'DeadlineError: only 10 ms left in this invocation'));
  run(trail, [EVENT, RETRY], { outcome: 'partial', failed: ['m-event', 'm-retry'] });
  run(trail, [LATE], { outcome: 'error', failed: ['m-late'] });
  run(trail, [EVENT, RETRY, LATE], {});
  expect(trail.redelivered()).toEqual([]);
});
