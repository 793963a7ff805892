/**
 * The operator's questions of the attempt log (docs/design.md §5): every attempt of a delivery,
 * a connection's recent attempts, recent final failures, and the HTTP API's pages and chart
 * reads. The attempt log's table module (adapters/dynamodb/attempts.ts) answers each; this class
 * checks what the caller asked and fills in the defaults.
 */

import { ValidationError } from '../core/errors';
import { isConnectionId } from '../core/ids';
import type { AttemptPageQuery, AttemptTable, Page, RangeRead } from '../core/stores';
import type { AttemptRecord } from '../core/types';

export type { AttemptPageQuery, RangeRead } from '../core/stores';

export interface AttemptQuery {
  connectionId: string;
  /** Only attempts at or after this time. */
  since?: Date;
  /** Only attempts that did not deliver. */
  failed?: boolean;
  /** @default 50 */
  limit?: number;
}

function checkConnectionId(connectionId: string): void {
  if (!isConnectionId(connectionId)) throw new ValidationError('connectionId', 'must look like con_<id>');
}

export class Attempts {
  /** The attempt log's table, for Resend's mark (management/resend.ts). */
  readonly table: AttemptTable;

  constructor(table: AttemptTable) {
    this.table = table;
  }

  /** Recent attempts of a connection, newest attempt first. */
  async list(query: AttemptQuery): Promise<AttemptRecord[]> {
    checkConnectionId(query.connectionId);
    return this.table.recent({ ...query, limit: query.limit ?? 50 });
  }

  /**
   * One page of a connection's attempts, newest attempt first, filtered (the HTTP API's attempt log);
   * `cursor` is the `nextCursor` of the previous page (InvalidCursorError for any other).
   */
  async page(query: AttemptPageQuery): Promise<Page<AttemptRecord>> {
    checkConnectionId(query.connectionId);
    return this.table.page(query);
  }

  /** Every attempt of a connection requested in [since, until), for charts; reports its read cost. */
  inRange(query: { connectionId: string; since: Date; until: Date }): Promise<RangeRead> {
    return this.table.inRange(query);
  }

  /** Every attempt of one delivery, oldest first. */
  ofDelivery(deliveryId: string): Promise<AttemptRecord[]> {
    return this.table.ofDelivery(deliveryId);
  }

  /** Final failures across connections, newest first, over the last `days` days. */
  finalFailures(options: { days?: number; limit?: number; now?: Date } = {}): Promise<AttemptRecord[]> {
    return this.table.finalFailures({
      days: options.days ?? 1,
      limit: options.limit ?? 50,
      now: options.now ?? new Date(),
    });
  }
}
