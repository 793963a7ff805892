/**
 * Shared pieces of the fault suite. Every scenario runs on its own queue and DLQ, with its
 * own receivers and connections, and ends with the no-loss ledger (test/support/ledger.ts).
 *
 * `npm test` runs the quick variant of each scenario (small sizes, short windows);
 * `npm run test:faults` sets FAULTS=full for the larger one. Ledgers are printed and written
 * to $TMPDIR/webhooks-faults/<scenario>.txt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICES_ENV, type ServicesInfo } from '../support/emulators';
import type { FaultRecord } from '../support/fault-proxy';
import { formatLedger, type Ledger, ledgerLine } from '../support/ledger';
import { type Stack, type StackOptions, startStack } from '../support/stack';
import { sleep, waitFor } from '../support/wait';

/** FAULTS=full: the larger variant of every scenario. */
export const FULL = process.env.FAULTS === 'full';

/** `quick` under `npm test`, `full` under `npm run test:faults`. */
export const size = <T>(quick: T, full: T): T => (FULL ? full : quick);

export function servicesInfo(): ServicesInfo {
  const raw = process.env[SERVICES_ENV];
  if (!raw) throw new Error(`${SERVICES_ENV} is not set: run through the faults project (its global setup)`);
  return JSON.parse(raw) as ServicesInfo;
}

/** A one-line description of the faults a proxy injected, with their hit counts. */
export function describeFaults(records: readonly FaultRecord[]): string {
  return records
    .map((r) => {
      const ops = r.operations === 'all' ? 'all operations' : r.operations.join(', ');
      const span = r.endedAt ? ` for ${((r.endedAt - r.startedAt) / 1000).toFixed(1)} s` : '';
      return r.fault === 'refuse'
        ? `${r.label}${span}`
        : `${r.label} (${ops})${span}: ${r.hits} requests hit`;
    })
    .join('; ');
}

/** Prints the ledger of a scenario and keeps it in $TMPDIR/webhooks-faults for the report. */
export function report(scenario: string, ledger: Ledger, faults: string, stack?: Stack): void {
  const batches = stack?.batchStats();
  const text = [
    formatLedger(ledger, `Fault scenario: ${scenario}${FULL ? ' (full)' : ' (quick)'}`),
    `  faults injected: ${faults}`,
    batches
      ? `  dispatcher: ${batches.batches} batches, ${batches.partial} partial, ${batches.error} failed, ${batches.timeout} timed out, ${batches.recordsLeft} records left for redelivery`
      : '',
    ledger.duplicateSample.length
      ? `  duplicates, e.g.: ${ledger.duplicateSample.slice(0, 3).join(' | ')}`
      : '',
    `  ${ledgerLine(ledger)}`,
    ...(ledger.problems.length && stack
      ? stack.log.recent
          .filter((l) => l.level === 'error')
          .slice(-5)
          .map((l) => `  dispatcher error: ${l.message} ${JSON.stringify(l.fields).slice(0, 400)}`)
      : []),
  ]
    .filter(Boolean)
    .join('\n');
  const dir = join(tmpdir(), 'webhooks-faults');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${scenario.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.txt`), `${text}\n`);
  process.stdout.write(`\n${text}\n`);
}

/** The promise of the pipeline: nothing lost, every duplicate and every attempt accounted for. */
export function expectNoLoss(ledger: Ledger): void {
  expect(ledger.lost).toBe(0);
  expect(ledger.unexplainedDuplicates).toBe(0);
  expect(ledger.problems).toEqual([]);
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  // Received, not logged (a record in the DLQ) on one side; logged, cut short before the receiver read it on the other.
  expect(ledger.attemptsLogged + sum(ledger.attemptExceptions)).toBe(
    ledger.attemptsReceived + sum(ledger.loggedNotReceived),
  );
}

/** Polls until `probe` is true, failing after `timeoutMs` with `what`. */
export async function until(what: string, probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  await waitFor(what, probe, { timeoutMs });
}

/** Publishes `total` events in chunks of 5 spread evenly over `overMs` (before, during and after a fault). */
export async function publishSteadily(
  stack: Stack,
  options: { applicationId: string; connections: readonly string[]; total: number; overMs: number },
): Promise<void> {
  const chunks = Math.ceil(options.total / 5);
  for (let i = 0; i < chunks; i++) {
    const count = Math.min(5, options.total - i * 5);
    await stack.publishEvents(count, {
      applicationId: options.applicationId,
      connections: options.connections,
      concurrency: 1,
    });
    await sleep(options.overMs / chunks);
  }
}

/**
 * The timings of runs that SIGKILL the dispatcher: a short function timeout, and a visibility
 * timeout as short as Lambda allows for it, so what a killed process had in flight comes back soon.
 */
export const KILLED_RUN = {
  attemptTimeoutMs: 2_000,
  functionTimeoutMs: 8_000,
  runnerConcurrency: 2,
} as const;

/** A stack whose dispatcher runs as a child process (so it can be SIGKILLed), with KILLED_RUN timings. */
export function startKillableStack(label: string, extra: Partial<StackOptions> = {}): Promise<Stack> {
  return startStack({
    services: servicesInfo(),
    label,
    visibilityTimeoutSeconds: KILLED_RUN.functionTimeoutMs / 1000,
    ...KILLED_RUN,
    childProcess: true,
    ...extra,
  });
}

/**
 * SIGKILLs the dispatcher and starts it again. What the killed process had in flight (received
 * up to one function timeout before) goes in the ledger's windows under `label`: its resends are
 * duplicates the spec allows. Returns how many requests had been verified when it died.
 */
export async function killAndRestart(
  stack: Stack,
  label: string,
  functionTimeoutMs: number,
): Promise<number> {
  const at = Date.now();
  await stack.killDispatcher();
  const verified = stack.fleet.counters.verified;
  stack.windows.push({ label, from: at - functionTimeoutMs - 1_000, to: at + 500 });
  await stack.startDispatcher();
  return verified;
}
