/**
 * The dispatcher under test in its own process, so a scenario can SIGKILL it mid-batch and
 * a load run gets a core of its own: `node --import tsx test/support/dispatcher-process.ts`
 * with the {@link DispatcherSpec} as JSON in `WEBHOOKS_RELIABILITY_DISPATCHER`. Prints
 * `{"ready":true}`, then a `{"stats":…}` line every second; SIGTERM (or stdin closing)
 * stops it gracefully, SIGKILL does not.
 */
import { exitWithParent } from './child';
import { type DispatcherSpec, startDispatcher } from './dispatcher';
import type { MetricTotalsView } from './ledger';

export const SPEC_ENV = 'WEBHOOKS_RELIABILITY_DISPATCHER';
const STATS_EVERY_MS = 1_000;

export interface DispatcherStatsLine {
  readonly stats: {
    readonly pid: number;
    readonly batches: ReturnType<typeof startDispatcher>['batches'];
    readonly logCounts: Record<string, number>;
    readonly metrics: MetricTotalsView;
  };
}

function main(): void {
  const raw = process.env[SPEC_ENV];
  if (!raw) throw new Error(`${SPEC_ENV} is not set`);
  const spec = JSON.parse(raw) as DispatcherSpec;
  const running = startDispatcher(spec);
  const print = () => {
    const line: DispatcherStatsLine = {
      stats: {
        pid: process.pid,
        batches: running.batches,
        logCounts: running.log.counts,
        metrics: running.metrics,
      },
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  };
  const timer = setInterval(print, STATS_EVERY_MS);
  let stopping = false;
  exitWithParent(() => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    void running.stop().finally(() => {
      print();
      process.exit(0);
    });
  });
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`);
}

try {
  main();
} catch (error) {
  console.error('reliability dispatcher failed to start:', error);
  process.exit(1);
}
