/**
 * Recovery probes (docs/design.md §9 "Recovery probes"): above the spec's per-delivery schedule,
 * which is unchanged, a connection whose deliveries park because its endpoint failed is checked
 * on a schedule of its own by sending its oldest parked delivery again, one attempt; a 2xx
 * recovers the rest. This module is pure: the schedule, who may be probed, the probe state kept
 * in the connection's health (one conditional write decides each step, so exactly one writer
 * queues each check) and the probe message. core/prober.ts runs a check, health-tracker.ts
 * writes the steps.
 */

import { ValidationError } from './errors';
import {
  type ConnectionHealth,
  type HealthStep,
  type HealthThresholds,
  nextHealth,
  type ProbeCheck,
} from './health';
import { isConnectionId } from './ids';
import { isIsoUtc } from './payload';
import { isoTime } from './time';
import type { Connection, ProbeMessage } from './types';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The checks' spacing: 1 min, 5 min, 15 min, 1 h, then every 3 h (the last wait repeats) until
 * {@link PROBE_HORIZON_MS}: the last check about 25 h after the endpoint went down.
 */
export const DEFAULT_RECOVERY_PROBES_MS: readonly number[] = Object.freeze([
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  HOUR,
  3 * HOUR,
]);

/** No check is due later than this after the endpoint went down: about what Svix keeps retrying for. */
export const PROBE_HORIZON_MS = 27 * HOUR;

/** At most this many checks in a schedule, each 1 s to 7 days after the one before. */
export const MAX_PROBES = 100;
const MIN_PROBE_MS = 1_000;
const MAX_PROBE_MS = 7 * 24 * HOUR;

/**
 * A chain whose next check is this far overdue has lost its message (a send that failed): the
 * next exhausted delivery starts a new chain. Beyond the 15 minutes a message can wait in SQS.
 */
export const PROBE_STALE_MS = 30 * MINUTE;

const UNIT_MS = { s: 1_000, m: MINUTE, h: HOUR, d: 24 * HOUR } as const;

/**
 * A schedule as written in a setting: `off`, or comma-separated durations (`3s,3s,3s`,
 * `1m,5m,15m,1h,3h`), each the wait after the check before (the first: after the delivery that
 * started the chain parked; the last repeats until {@link PROBE_HORIZON_MS}). False: off.
 * @throws ValidationError naming `field` and what is wrong.
 */
export function parseProbeSchedule(text: string, field = 'recoveryProbes'): number[] | false {
  const raw = text.trim().toLowerCase();
  if (raw === 'off' || raw === 'false') return false;
  return checkProbeSchedule(
    raw.split(',').map((part) => {
      const m = /^(\d{1,6})\s*([smhd])$/.exec(part.trim());
      if (!m) throw new ValidationError(field, `"${part.trim()}" is not a duration like 30s, 5m, 1h or 1d`);
      return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    }),
    field,
  );
}

/** Checks a schedule in milliseconds: 1 to {@link MAX_PROBES} waits of 1 s to 7 days. */
export function checkProbeSchedule(waits: readonly number[], field = 'recoveryProbes'): number[] {
  if (waits.length === 0 || waits.length > MAX_PROBES) {
    throw new ValidationError(field, `must list 1 to ${MAX_PROBES} durations, or be off`);
  }
  for (const ms of waits) {
    if (!Number.isInteger(ms) || ms < MIN_PROBE_MS || ms > MAX_PROBE_MS) {
      throw new ValidationError(field, `each wait must be from 1s to 7d, got ${ms} ms`);
    }
  }
  return [...waits];
}

/** A schedule as a setting writes it: `1m,5m,15m,1h,3h,…`. */
export function formatProbeSchedule(waits: readonly number[]): string {
  return waits
    .map((ms) => {
      for (const unit of ['d', 'h', 'm'] as const) {
        if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
      }
      return `${Math.round(ms / 1000)}s`;
    })
    .join(',');
}

/**
 * Why a connection is not probed, or undefined when it is: its owner turned probes off for it,
 * or disabled it (a connection endpoint health disabled is probed, and a 2xx enables it again).
 */
export function notProbed(connection: Pick<Connection, 'enabled' | 'recoveryProbes' | 'health'>) {
  if (connection.recoveryProbes === false) return 'probes_off' as const;
  if (connection.enabled !== true && connection.health?.state !== 'disabled')
    return 'owner_disabled' as const;
  return undefined;
}

/**
 * A probe message as read from the retry queue, checked field by field.
 * @throws ValidationError naming the field.
 */
export function parseProbe(m: Record<string, unknown>): ProbeMessage {
  if (!isConnectionId(m.connectionId)) throw new ValidationError('connectionId', 'must look like con_<id>');
  if (typeof m.seq !== 'number' || !Number.isSafeInteger(m.seq) || m.seq < 1) {
    throw new ValidationError('seq', 'must be a whole number from 1');
  }
  if (!isIsoUtc(m.dueAt)) throw new ValidationError('dueAt', 'must be an ISO 8601 UTC date-time');
  return { v: 1, type: 'probe', connectionId: m.connectionId, seq: m.seq, dueAt: m.dueAt };
}

export function probeMessage(connectionId: string, check: ProbeCheck): ProbeMessage {
  return { v: 1, type: 'probe', connectionId, seq: check.seq, dueAt: isoTime(check.dueAtMs) };
}

/** What changes a connection's probe state. */
export type ProbeEvent =
  /** A delivery exhausted its chain: start checking, unless a chain runs. */
  | { kind: 'exhausted' }
  /**
   * A delivery got through: if the endpoint was down (a chain waits, or ran out), check now, so
   * the parked ones are recovered; `check` false (not probed) only clears the down time.
   */
  | { kind: 'delivered'; check?: boolean }
  /** Check `seq` failed (or could not be made): the next one, or the chain ends. */
  | { kind: 'failed'; seq: number }
  /** A check delivered: the endpoint is back (the chain ends; a disabled connection is enabled). */
  | { kind: 'recovered' }
  /** Parked deliveries are left after a recovery's share: check again once those queued are sent. */
  | { kind: 'resume'; afterMs: number }
  /** The chain stops: owner disabled, probes turned off, nothing parked. */
  | { kind: 'stop'; seq?: number };

type ProbeFields = Pick<ConnectionHealth, 'downSince' | 'nextCheckAt' | 'checksMade' | 'checkSeq'>;

/**
 * The probe fields after an event: the fields to write (absent ones removed) and the check to
 * queue, or undefined when nothing changes. `waits` is the stack's schedule; `nowMs` the clock.
 */
export function probeStep(
  health: ConnectionHealth | undefined,
  event: ProbeEvent,
  waits: readonly number[],
  nowMs: number,
): { fields: ProbeFields; check?: ProbeCheck } | undefined {
  const seq = health?.checkSeq ?? 0;
  const pending = health?.nextCheckAt !== undefined;
  const schedule = (made: number, dueAtMs: number, downSince: string | undefined) => ({
    fields: { downSince, nextCheckAt: isoTime(dueAtMs), checksMade: made, checkSeq: seq + 1 },
    check: { seq: seq + 1, dueAtMs },
  });
  switch (event.kind) {
    case 'exhausted': {
      const stale = pending && Date.parse(health!.nextCheckAt!) + PROBE_STALE_MS < nowMs;
      if (pending && !stale) return undefined;
      const downSince = health?.downSince ?? isoTime(nowMs);
      // Down past the horizon: no new chain (new deliveries still get their own 4 attempts).
      if (nowMs + waits[0]! - Date.parse(downSince) > PROBE_HORIZON_MS) return undefined;
      return schedule(0, nowMs + waits[0]!, downSince);
    }
    case 'delivered':
      if (event.check !== false && (pending || health?.downSince)) {
        // Already due: the check is on its way; another delivery queues no second one.
        if (pending && Date.parse(health!.nextCheckAt!) <= nowMs) return undefined;
        return schedule(health?.checksMade ?? 0, nowMs, undefined);
      }
      // The endpoint answers: it is no longer down.
      return health?.downSince ? { fields: { checksMade: health.checksMade, checkSeq: seq } } : undefined;
    case 'failed': {
      if (event.seq !== seq || !pending) return undefined;
      const made = (health?.checksMade ?? 0) + 1;
      // The last wait repeats until the horizon.
      const wait = waits[Math.min(made, waits.length - 1)]!;
      const since = Date.parse(health?.downSince ?? isoTime(nowMs));
      if (nowMs + wait - since > PROBE_HORIZON_MS) return { fields: { ...ended(health), checksMade: made } };
      return schedule(made, nowMs + wait, health?.downSince);
    }
    case 'recovered':
      return pending || health?.downSince !== undefined ? { fields: { checkSeq: seq } } : undefined;
    case 'resume':
      return schedule(0, nowMs + event.afterMs, undefined);
    case 'stop':
      if (!pending || (event.seq !== undefined && event.seq !== seq)) return undefined;
      return { fields: ended(health) };
  }
}

/** The fields of a chain that ended: no check waits; when the endpoint went down is kept. */
function ended(health: ConnectionHealth | undefined): ProbeFields {
  return { downSince: health?.downSince, checksMade: health?.checksMade, checkSeq: health?.checkSeq };
}

/** Health with the probe fields replaced (an absent one removed). */
export function withProbeFields(health: ConnectionHealth, fields: ProbeFields): ConnectionHealth {
  const {
    downSince: _d,
    nextCheckAt: _n,
    checksMade: _c,
    checkSeq: _s,
    ...rest
  } = health as ConnectionHealth & ProbeFields;
  const next: ConnectionHealth = { ...rest };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  return next;
}

/** A health step with a probe step folded in (written even when health alone would not be). */
export function withProbe(step: HealthStep, probe: ReturnType<typeof probeStep>): HealthStep {
  if (!probe) return step;
  const next: HealthStep = { ...step, health: withProbeFields(step.health, probe.fields), write: true };
  if (probe.check) next.check = probe.check;
  return next;
}

/**
 * The health step of a check's result. A delivered check counts as a delivery, and enables a
 * connection endpoint health disabled (announced `connection.recovered`); the others move the
 * chain only, and are never counted as failures (a check is not a new delivery).
 */
export function probedStep(
  current: ConnectionHealth | undefined,
  event: Exclude<ProbeEvent, { kind: 'exhausted' | 'delivered' }>,
  thresholds: HealthThresholds,
  waits: readonly number[],
  at: string,
  nowMs: number,
): HealthStep {
  const base: ConnectionHealth = { state: 'healthy', consecutiveFailures: 0, version: 0, ...current };
  let step: HealthStep = { health: base, write: false, transitions: [] };
  if (event.kind === 'recovered') {
    // Enabled again only while a check waits: an owner who disables the connection ends the
    // chain first (management/connections.ts), so a check that was already out cannot undo it.
    const disabled = current?.state === 'disabled' && current.nextCheckAt !== undefined;
    step = nextHealth(current, { kind: disabled ? 'enabled' : 'delivered', at }, thresholds);
    if (disabled)
      step = { ...step, health: { ...step.health, lastSuccessAt: at }, write: true, enable: true };
  }
  return withProbe(step, probeStep(current, event, waits, nowMs));
}

/** A delivery's health step with the probe step it brings (`waits` absent: probes off). */
export function eventStep(
  current: ConnectionHealth | undefined,
  step: HealthStep,
  kind: 'exhausted' | 'delivered',
  connection: Pick<Connection, 'enabled' | 'recoveryProbes' | 'health'>,
  waits: readonly number[] | undefined,
  nowMs: number,
): HealthStep {
  if (!waits) return step;
  const probed = !notProbed(connection);
  if (kind === 'exhausted')
    return probed ? withProbe(step, probeStep(current, { kind }, waits, nowMs)) : step;
  return withProbe(step, probeStep(current, { kind, check: probed }, waits, nowMs));
}
