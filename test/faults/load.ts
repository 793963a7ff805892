/**
 * `npm run load -- --events N --connections C --failing P% --flaky Q%`
 *
 * A load run on loopback: local services (fauxqs; dynalite and the local Secrets Manager),
 * the dispatcher under the Lambda-like runner in its own process, C HTTPS receivers that
 * verify every signature (P% always answer 500, Q% answer 503 twice per delivery then 200,
 * the rest 200). Publishes N events fanned out to the C connections, waits for the queue to
 * drain, prints the ledger, and exits 1 if anything was lost or the attempt log and the
 * receivers disagree. Bounded: at most 100 000 events, 100 connections, `--timeout-min`.
 *
 * It lives beside the fault suite, not under bench/: it measures nothing to compare against a
 * baseline; it is the ledger check of test/faults/ledger-load.test.ts at a size no test run
 * should take (docs/reliability.md "Under load").
 */
import { parseArgs } from 'node:util';
import { startServices } from '../support/emulators';
import { formatLedger, type Ledger } from '../support/ledger';
import type { FleetBehaviour } from '../support/receivers';
import { type ConnectedReceiver, startStack } from '../support/stack';

const USAGE = `Usage: npm run load -- [options]

  --events N               events to publish (default 1000, at most 100000)
  --connections C          receivers / webhook connections (default 20, at most 100)
  --failing P%             share of receivers that always answer 500 (default 10%)
  --flaky Q%               share that answer 503 twice per delivery, then 200 (default 10%)
  --applications A         spread the connections over A applications (default 1)
  --rate R                 publish R events per second instead of all at once (a burst)
  --runner-concurrency R   batches in flight at once, like concurrent Lambdas (default 3)
  --attempt-timeout-ms T   deadline of one attempt (default 10000)
  --timeout-min M          give up waiting for the drain after M minutes (default 20)
  --json                   also print the ledger as JSON`;

const MAX_EVENTS = 100_000;
const MAX_CONNECTIONS = 100;
const PROGRESS_EVERY_MS = 15_000;

function percent(raw: string, flag: string): number {
  const n = Number(raw.replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new Error(`${flag}: "${raw}" is not a percentage`);
  return n;
}

function whole(raw: string, flag: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag}: "${raw}" must be ${min}–${max}`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000' },
      connections: { type: 'string', default: '20' },
      failing: { type: 'string', default: '10%' },
      flaky: { type: 'string', default: '10%' },
      applications: { type: 'string', default: '1' },
      rate: { type: 'string' },
      'runner-concurrency': { type: 'string', default: '3' },
      'attempt-timeout-ms': { type: 'string', default: '10000' },
      'timeout-min': { type: 'string', default: '20' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const events = whole(values.events, '--events', 1, MAX_EVENTS);
  const connections = whole(values.connections, '--connections', 1, MAX_CONNECTIONS);
  const applications = whole(values.applications, '--applications', 1, connections);
  const runnerConcurrency = whole(values['runner-concurrency'], '--runner-concurrency', 1, 10);
  const attemptTimeoutMs = whole(values['attempt-timeout-ms'], '--attempt-timeout-ms', 100, 30_000);
  const timeoutMs = whole(values['timeout-min'], '--timeout-min', 1, 120) * 60_000;
  const rate = values.rate === undefined ? undefined : whole(values.rate, '--rate', 1, 10_000);
  const failing = Math.round((connections * percent(values.failing, '--failing')) / 100);
  const flaky = Math.min(
    connections - failing,
    Math.round((connections * percent(values.flaky, '--flaky')) / 100),
  );
  const behaviours: FleetBehaviour[] = Array.from({ length: connections }, (_, i) =>
    i < failing ? 'fail' : i < failing + flaky ? 'flaky' : 'ok',
  );
  const out = (line = '') => process.stdout.write(`${line}\n`);

  out(
    `Load: ${events} events × ${connections} connections (${failing} failing, ${flaky} flaky, ` +
      `${connections - failing - flaky} ok) over ${applications} application(s); ` +
      `runner concurrency ${runnerConcurrency}, attempt timeout ${attemptTimeoutMs} ms, ` +
      (rate ? `${rate} events/s` : 'published in one burst'),
  );
  const started = Date.now();
  const services = await startServices();
  // Function timeout and visibility as a deployment sizes them, scaled to the shortened attempt.
  const functionTimeoutMs = attemptTimeoutMs + 20_000;
  const stack = await startStack({
    services: services.info,
    label: 'load',
    visibilityTimeoutSeconds: Math.ceil(functionTimeoutMs / 1000),
    attemptTimeoutMs,
    functionTimeoutMs,
    runnerConcurrency,
    batchConcurrency: 10,
    connectionCacheTtlMs: 30_000,
    sdkMaxAttempts: 3,
    childProcess: true,
  });
  let progress: NodeJS.Timeout | undefined;
  try {
    const apps = Array.from({ length: applications }, (_, i) => `app_load${i}`);
    const connected: ConnectedReceiver[] = [];
    for (const [i, behaviour] of behaviours.entries()) {
      connected.push(await stack.connect(await stack.addReceiver(behaviour), apps[i % applications]!));
    }
    await stack.startDispatcher();
    out(`Ready in ${((Date.now() - started) / 1000).toFixed(1)} s; publishing…`);

    const publishStart = Date.now();
    progress = setInterval(() => {
      const s = stack.batchStats();
      out(
        `  … ${((Date.now() - publishStart) / 1000).toFixed(0)} s: ${stack.fleet.counters.verified} requests received, ` +
          `${stack.fleet.deliveries.size} deliveries seen, ${s.batches} batches (${s.recordsLeft} records left for redelivery)`,
      );
    }, PROGRESS_EVERY_MS);
    const connectionsOf = (app: string) =>
      connected.filter((c) => c.connection.applicationId === app).map((c) => c.connection.connectionId);
    if (rate) {
      // Paced: chunks of up to 10 events (one SendMessageBatch), round-robin over the applications.
      const chunk = Math.min(10, rate);
      for (let sent = 0, i = 0; sent < events; i++) {
        const n = Math.min(chunk, events - sent);
        const app = apps[i % applications]!;
        const due = publishStart + (sent * 1000) / rate;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
        await stack.publishEvents(n, { applicationId: app, connections: connectionsOf(app), concurrency: 1 });
        sent += n;
      }
    } else {
      const perApp = Math.ceil(events / applications);
      await Promise.all(
        apps.map((app, i) =>
          stack.publishEvents(Math.min(perApp, events - i * perApp), {
            applicationId: app,
            connections: connectionsOf(app),
            concurrency: Math.max(1, Math.floor(4 / applications)),
          }),
        ),
      );
    }
    out(
      `Published ${stack.events.length} events in ${((Date.now() - publishStart) / 1000).toFixed(1)} s; waiting for the drain…`,
    );
    const drainedAt = await stack.waitForDrain({
      timeoutMs: Math.max(60_000, timeoutMs - (Date.now() - started)),
      quietMs: 3_000,
    });
    clearInterval(progress);
    out(
      `Drained after ${((drainedAt - publishStart) / 1000).toFixed(1)} s; reading the DLQ and the attempt log…`,
    );
    const ledger: Ledger = await stack.ledger(drainedAt);
    out();
    out(
      formatLedger(
        ledger,
        `Ledger (${events} events × ${connections} connections, ${values.failing} failing, ${values.flaky} flaky, ` +
          `${rate ? `${rate} events/s` : 'one burst'})`,
      ),
    );
    const batches = stack.batchStats();
    out(
      `  dispatcher: ${batches.batches} batches (${batches.partial} partial, ${batches.error} failed, ` +
        `${batches.timeout} timed out), ${batches.recordsLeft} records left for redelivery`,
    );
    if (values.json) out(JSON.stringify(ledger, null, 2));
    out(`Total ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    if (ledger.problems.length > 0) {
      out(`FAILED: ${ledger.problems.join(' | ')}`);
      return 1;
    }
    out('OK: nothing lost, every attempt logged and received.');
    return 0;
  } finally {
    clearInterval(progress);
    await stack.stop();
    await services.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`npm run load: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.DEBUG) console.error(error);
    process.exit(2);
  },
);
