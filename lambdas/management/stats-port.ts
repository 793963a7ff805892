/**
 * What `webhooks stats` shows operators (docs/operations.md#webhooks-stats), and the port its
 * figures come through. Two adapters fill the same shape, so one renderer prints both: the
 * stack's own stores and queues (adapters/stats/stores.ts, local mode) and CloudWatch
 * (adapters/stats/cloudwatch.ts, a deployed stack).
 */

import type { Outcome } from '../core/types';

/** Messages on one queue, as SQS counts them (approximate), and how old the oldest is. */
export interface QueueDepth {
  /** Ready to be received. */
  visible: number;
  /** Sent with a delay that has not passed yet (retries waiting for their backoff). */
  delayed: number;
  /** Received and being processed. */
  inFlight: number;
  /**
   * Age of the oldest message in seconds (0 on an empty queue); null when the source cannot
   * tell (no CloudWatch data point in the last 15 minutes, or an SQS without an inspection API).
   */
  oldestAgeSeconds: number | null;
}

/** Where the figures were read: the stores themselves, or the metrics the dispatcher emits. */
export type StatsSourceKind = 'stores' | 'cloudwatch';

export interface OperatorStats {
  /** `stores`: the attempt log, counted (test sends included); `cloudwatch`: the `Webhooks` metrics. */
  source: StatsSourceKind;
  since: string;
  until: string;
  attempts: { total: number; byOutcome: Record<Outcome, number> };
  /**
   * Connections by failed attempts in the window (any outcome but delivered), most first, with
   * all their attempts in the window where the source knows them (the attempt log does; the
   * Contributor Insights rule counts failed attempts only).
   */
  topFailing: Array<{ connectionId: string; failed: number; attempts?: number }>;
  queues: { ingress: QueueDepth; retry: QueueDepth; deadLetter: QueueDepth };
  /** Messages in the dead-letter queue (visible, delayed and in flight). */
  dlqDepth: number;
  /** Deliveries parked now (undefined on a stack without the parked table). */
  parked?: number;
}

export interface StatsQuery {
  since: Date;
  until: Date;
  /** How many connections `topFailing` lists. @default 5 */
  top?: number;
}

/** Port: where the figures come from. */
export interface OperatorStatsSource {
  read(query: StatsQuery): Promise<OperatorStats>;
}

/** The three queues by their names in {@link OperatorStats.queues}. */
export type QueueName = keyof OperatorStats['queues'];

/** Ages of the oldest messages, by queue, in seconds (null: unknown); for sources that can tell. */
export type OldestAges = () => Promise<Record<QueueName, number | null>>;
