/**
 * Which queue records SQS handed the in-process dispatcher more than once, and why the earlier
 * receipt did not end the record: the evidence the ledger needs to explain a second copy of an
 * attempt by the record that carried it (test/support/ledger.ts), instead of by the time it was
 * sent. On a loaded machine the dispatcher can run 20 s behind, so an attempt sent well after a
 * fault window may still have been carried by a record that the fault left for redelivery.
 *
 * An earlier receipt explains the next one when it ended in a way that is no fault of the product's:
 * - its invocation timed out: the runner (Lambda's semantics) leaves the whole batch, records
 *   already done included;
 * - the dispatcher reported it in `batchItemFailures` and logged an infrastructure error for
 *   it (a failed SQS or DynamoDB call, injected or not): docs/design.md §4;
 * - it was deleted, or had not settled yet, and SQS delivered it again all the same: its
 *   visibility timeout (7 s in the SQS scenario) ran out while the batch was still running.
 * A receipt left for a near deadline (`DeadlineError`: nothing was sent), or failed on any other
 * error (a bug), or by a handler that threw, explains nothing: the duplicate stays unexplained.
 */
import type { SQSHandler, SQSRecord } from 'aws-lambda';
import type { BatchReport } from '../../local/runner';
import type { RedeliveredRecord } from './ledger';

/** The dispatcher's log line for a record it left to SQS because of an error (lambdas/core/batch.ts). */
const RECORD_FAILED = 'record failed; SQS will redeliver it';
/** Errors of the infrastructure stage (lambdas/core/errors.ts) whose records may have sent already. */
const INFRASTRUCTURE = new Set(['InfrastructureError', 'HealthContentionError']);

/** A line of the dispatcher's log as CountingLog hands it over (dispatcher.ts). */
interface LogLine {
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

interface Receipt {
  readonly carries: Omit<RedeliveredRecord, 'label'> | undefined;
  /** How the receipt ended: `deleted`, or why it was left; undefined while its batch runs. */
  ended?: string;
}

export class RecordTrail {
  private readonly receipts = new Map<string, Receipt[]>();
  /** The latest infrastructure error the dispatcher logged for a record, until its batch reports. */
  private readonly failedOn = new Map<string, string>();

  /** The Lambda handler, noting each record as its invocation starts. */
  wrap(handler: SQSHandler): SQSHandler {
    return (event, context, callback) => {
      for (const record of event.Records) {
        const list = this.receipts.get(record.messageId) ?? [];
        list.push({ carries: carried(record) });
        this.receipts.set(record.messageId, list);
      }
      return handler(event, context, callback);
    };
  }

  /** The runner's report of a batch: how each receipt ended. */
  noteBatch(report: BatchReport): void {
    const left = new Set(report.failed);
    for (const id of report.messageIds) {
      const receipt = this.receipts.get(id)?.findLast((r) => r.ended === undefined);
      const failedOn = this.failedOn.get(id);
      this.failedOn.delete(id);
      if (!receipt) continue;
      if (!left.has(id)) receipt.ended = 'deleted';
      else if (report.outcome === 'timeout') receipt.ended = 'its invocation timed out on the loaded machine';
      else if (report.outcome === 'partial' && failedOn) receipt.ended = failedOn;
      else receipt.ended = 'not explained';
    }
  }

  /** The dispatcher's log: why it left a record (only an infrastructure error counts). */
  noteLog(line: LogLine): void {
    const { messageId, errorName, error } = line.fields;
    if (line.message !== RECORD_FAILED || typeof messageId !== 'string') return;
    if (!INFRASTRUCTURE.has(String(errorName))) return;
    // "InfrastructureError: scheduler.schedule failed (deliveryId …) <- …": the failed operation.
    const operation = /^\w+: ([\w.]+ failed)/.exec(String(error))?.[1] ?? 'a dependency failed';
    this.failedOn.set(
      messageId,
      `${operation}${String(error).includes('injected fault') ? ', injected' : ''}`,
    );
  }

  /** Every record received again after a receipt that ended for a reason not the product's fault. */
  redelivered(): RedeliveredRecord[] {
    const out: RedeliveredRecord[] = [];
    for (const list of this.receipts.values()) {
      for (let i = 0; i + 1 < list.length; i++) {
        const { carries, ended } = list[i]!;
        if (!carries || ended === 'not explained') continue;
        const why =
          ended === undefined || ended === 'deleted'
            ? 'SQS delivered it again: its visibility timeout ran out before its batch settled'
            : ended;
        out.push({ ...carries, label: `its record was redelivered (${why}): attempt sent again` });
      }
    }
    return out;
  }
}

/** What a record carries: an event (its deliveries' attempt 1) or one attempt of a delivery. */
function carried(record: SQSRecord): Omit<RedeliveredRecord, 'label'> | undefined {
  try {
    const body = JSON.parse(record.body) as {
      type?: string;
      eventId?: string;
      deliveryId?: string;
      attempt?: number;
    };
    if (body.type === 'event' && body.eventId) return { eventId: body.eventId, attempt: 1 };
    if (body.type === 'delivery' && body.deliveryId && typeof body.attempt === 'number') {
      return { deliveryId: body.deliveryId, attempt: body.attempt };
    }
  } catch {
    // Poison: it carries no attempt.
  }
  return undefined;
}
