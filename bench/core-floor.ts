/**
 * The core against the spec's floor: CPU per delivery of `processBatch` (instant sender,
 * in-memory ports) against the outputs the spec requires of a delivery made the cheapest way
 * Node offers: the event parsed and checked (`buildPayload`), the body, the delivery id's
 * SHA-256, the standard and custom headers with the HMAC signature, and a plain attempt record.
 * floor ÷ core is a regression guard (issue 26 withdrew issue 15's target of 0.90). Run from the
 * Lambda-like bundle (bench/bundled-process.ts), never through tsx.
 */

import { createHmac, hash } from 'node:crypto';
import { cpuUsage } from 'node:process';
import { createDispatcher } from '../lambdas/core/dispatch';
import { buildPayload, serialiseBody } from '../lambdas/core/payload';
import type { HttpSender, InputRecord } from '../lambdas/core/ports';
import { isoTime } from '../lambdas/core/time';
import type { AttemptResult, EventMessage } from '../lambdas/core/types';
import { capturedPowertoolsLog } from '../test/support/captured-log';
import { connectionFor, HEADER_PREFIX, SECRET, userIdentified } from '../test/support/fixtures';
import { memoryPorts } from '../test/support/memory';
import { RECEIVER_HOST } from '../test/support/pki';
import { median, round } from './support/stats';

/**
 * The regression guard on floor ÷ core: about three quarters of the figures measured when the
 * floor was widened (0.47 on a loaded 2-core machine, 2026-11-25). Below it, the core has taken
 * on work per delivery that the spec's outputs do not need: find what before merging.
 */
export const CORE_FLOOR_GUARD = 0.35;

/** Rounds of each side run before measuring: the core's first rounds run at 1.5-2.5× its steady cost. */
const WARM_UP_ROUNDS = 3;

export interface CoreFloorOptions {
  /** Deliveries per round, in batches of 10. */
  deliveries: number;
  rounds: number;
}

export interface CoreFloorFigures {
  deliveries: number;
  rounds: number;
  /** CPU µs per delivery: processBatch with an instant sender, and the spec's floor alone. */
  coreCpuMicros: number;
  floorCpuMicros: number;
  /** floor ÷ core: a regression guard (issue 26 withdrew issue 15's target of 0.90). */
  ratio: number;
}

export async function measureCoreFloor(options: CoreFloorOptions): Promise<CoreFloorFigures> {
  const n = options.deliveries;
  const app = 'app_core_floor';
  const connection = connectionFor(`https://${RECEIVER_HOST}/instant`, app);
  const answer = (): AttemptResult => ({
    kind: 'response',
    status: 200,
    snippet: '{"ok":true}',
    durationMs: 1,
  });
  const instant: HttpSender = { send: async () => answer() } as unknown as HttpSender;
  const capture = capturedPowertoolsLog('INFO');
  const ports = memoryPorts([connection], {
    sender: instant,
    log: capture.log,
    clock: { now: () => Date.now() },
  });
  const dispatcher = createDispatcher(
    { ...ports.deps, attemptLog: { append: async () => 'written' as const } },
    {
      headerPrefix: HEADER_PREFIX,
      attemptTtlDays: 30,
      concurrency: 10,
      egress: { allowLoopback: false, allowedPorts: [443] },
    },
  );
  const invocation = { remainingMs: () => 60_000 };
  const make = (): InputRecord[] =>
    Array.from({ length: n }, (_, i) => ({ messageId: `m-${i}`, body: JSON.stringify(userIdentified(app)) }));
  const runCore = async (records: InputRecord[]) => {
    for (let i = 0; i < records.length; i += 10)
      await dispatcher.processBatch(records.slice(i, i + 10), invocation);
  };
  const custom = connection.headers;
  const floor = (records: InputRecord[]) => {
    let sink = 0;
    for (const r of records) {
      const event = JSON.parse(r.body) as EventMessage;
      const body = serialiseBody(
        buildPayload({ timestamp: event.occurredAt, user: event.user, application: event.application }),
      );
      const id = hash('sha256', `${event.eventId}\u0000${connection.connectionId}`, 'hex');
      const requestedAtMs = Date.now();
      const timestamp = String(requestedAtMs);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        [`${HEADER_PREFIX}-Event`]: event.event,
        [`${HEADER_PREFIX}-Timestamp`]: timestamp,
        [`${HEADER_PREFIX}-Signature`]: `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`,
        ...custom,
      };
      const result = answer();
      const record = {
        deliveryId: id,
        connectionId: connection.connectionId,
        attempt: 1,
        requestedAt: isoTime(requestedAtMs),
        status: result.kind === 'response' ? result.status : undefined,
        outcome: 'delivered',
        durationMs: result.durationMs,
      };
      sink += headers['Content-Type']!.length + record.attempt;
    }
    return sink;
  };
  const cpuOf = async (run: () => unknown) => {
    const before = cpuUsage();
    await run();
    const used = cpuUsage(before);
    return (used.user + used.system) / n;
  };

  capture.start(false);
  try {
    // Every side warmed up until the JIT has settled (a warm container's steady state), then
    // rounds rotate through the sides so a slow patch of the machine hits each, and which side
    // goes first rotates too: each side gets records of its own, made just before its round.
    for (let i = 0; i < WARM_UP_ROUNDS; i++) {
      await runCore(make());
      floor(make());
      ports.clear();
    }
    const coreRounds: number[] = [];
    const floorRounds: number[] = [];
    const sides = [
      async () => {
        const records = make();
        coreRounds.push(await cpuOf(() => runCore(records)));
        ports.clear();
      },
      async () => {
        const records = make();
        floorRounds.push(await cpuOf(() => floor(records)));
      },
    ];
    for (let i = 0; i < options.rounds; i++) {
      for (let k = 0; k < sides.length; k++) await sides[(i + k) % sides.length]!();
    }
    const coreCpu = median(coreRounds);
    const floorCpu = median(floorRounds);
    return {
      deliveries: n,
      rounds: options.rounds,
      coreCpuMicros: round(coreCpu, 3),
      floorCpuMicros: round(floorCpu, 3),
      ratio: round(floorCpu / coreCpu, 3),
    };
  } finally {
    capture.stop();
  }
}
