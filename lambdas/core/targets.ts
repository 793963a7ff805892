/** Whether a delivery's connection may be delivered to, and the reason when it may not. */

import type { Connection, RefusalReason } from './types';

/** A connection a delivery is for, and why it cannot be delivered to, if it cannot. */
export interface Target {
  id: string;
  /** Absent when missing, or when it belongs to another application (its URL stays out of this one's log). */
  connection?: Connection;
  refusal?: [RefusalReason, string];
  /**
   * The event named another application's connection: a publisher's mistake, recorded for the
   * publisher's side only (log line, metric, DLQ reason), never in that connection's attempt log.
   */
  foreign?: true;
}

/**
 * Whether an event without explicit targets fans out to this connection of its application:
 * a webhook, enabled, or disabled by health, whose deliveries are parked (connection_disabled),
 * not lost, until it is enabled (docs/design.md §9). Strictly true: a stored `"false"` (a string)
 * must not read as enabled.
 */
export function fansOutTo(connection: Connection): boolean {
  return (
    connection.type === 'webhook' && (connection.enabled === true || connection.health?.state === 'disabled')
  );
}

/** The targets of an event without explicit ones: its application's connections that it fans out to. */
export function targetsOfListing(connections: readonly Connection[]): Target[] {
  return connections.filter(fansOutTo).map((c) => judgeTarget(c.connectionId, c));
}

/**
 * Judges a looked-up connection: missing, disabled, or (when the event named it explicitly,
 * `applicationId` given) another application's, is refused with its dead-letter reason.
 */
export function judgeTarget(id: string, connection: Connection | undefined, applicationId?: string): Target {
  if (!connection) return { id, refusal: ['connection_missing', `connection ${id} does not exist`] };
  if (applicationId !== undefined && connection.applicationId !== applicationId) {
    return { id, refusal: otherApplication(id, applicationId), foreign: true };
  }
  if (connection.enabled !== true) {
    return { id, connection, refusal: ['connection_disabled', `connection ${id} is disabled`] };
  }
  return { id, connection };
}

export function otherApplication(id: string, applicationId: string): [RefusalReason, string] {
  return ['connection_invalid', `connection ${id} belongs to another application, not ${applicationId}`];
}
