/**
 * `npm run bench`: the measurements of docs/performance.md, each against a baseline
 * measured in the same run. Prints a table and writes bench-results/latest.json plus a
 * dated copy. Loopback only; bounded to a few minutes on a shared 2-core machine.
 *
 *   npm run bench                          # everything
 *   npm run bench -- --only coldStart,volume
 *   npm run bench -- --quick               # fewer rounds: a smoke run, not figures to publish
 *   npm run bench -- --only billed --json  # the results as JSON on stdout instead of the table
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { measureApiCalls } from './api-calls';
import { measureBatchTime } from './batch-time';
import { measureBilled } from './billed';
import { measureBodyStorage } from './body-storage';
import { measureColdStart } from './cold-start';
import { measureConsoleBundle } from './console-bundle';
import { measureEndToEnd } from './end-to-end';
import { measureRateLimit } from './rate-limit';
import type { BenchResults } from './support/results';
import { printTable } from './table';
import { measureVolume } from './volume';

const MEASUREMENTS = [
  'endToEnd',
  'coldStart',
  'volume',
  'consoleBundle',
  'apiCalls',
  'apiCallsKms',
  'batchTime',
  'rateLimit',
  'bodyStorage',
  'billed',
] as const;
type Measurement = (typeof MEASUREMENTS)[number];
const OUT_DIR = resolve(__dirname, '..', 'bench-results');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const only = (values.only?.split(',').map((s) => s.trim()) ?? [...MEASUREMENTS]) as Measurement[];
  const unknown = only.filter((m) => !MEASUREMENTS.includes(m));
  if (unknown.length)
    throw new Error(`--only: unknown ${unknown.join(', ')} (one of ${MEASUREMENTS.join(', ')})`);
  const quick = values.quick ?? false;
  const started = new Date();
  const results: BenchResults = {
    version: 1,
    startedAt: started.toISOString(),
    quick,
    node: process.version,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' },
  };
  const step = async <K extends Measurement>(
    name: K,
    run: () => Promise<BenchResults[K]> | BenchResults[K],
  ) => {
    if (!only.includes(name)) return;
    const t = performance.now();
    process.stderr.write(`bench: ${name}…`);
    results[name] = await run();
    process.stderr.write(` ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  };
  await step('volume', () => measureVolume());
  await step('bodyStorage', () => measureBodyStorage());
  await step('coldStart', () => measureColdStart(quick ? 3 : 9));
  await step('consoleBundle', () => measureConsoleBundle());
  await step('endToEnd', () =>
    measureEndToEnd({
      latencyEvents: quick ? 20 : 60,
      throughputEvents: quick ? 100 : 600,
      retryDeliveries: quick ? 2 : 4,
    }),
  );
  await step('apiCalls', () => measureApiCalls({ healthy: quick ? 10 : 30, failing: quick ? 1 : 3 }));
  // The kms secret store: only its KMS calls matter (the rest is the same code), so a short run.
  await step('apiCallsKms', () => measureApiCalls({ healthy: 10, failing: 0, secretStore: 'kms' }));
  await step('rateLimit', () =>
    measureRateLimit({
      events: quick ? 300 : 2_000,
      limit: quick ? 20 : 50,
      pollers: 4,
      unlimitedEvents: quick ? 100 : 500,
    }),
  );
  await step('batchTime', () => measureBatchTime({ batches10: quick ? 5 : 20, batches100: quick ? 1 : 3 }));
  // Last: it holds its own emulators, receivers and capped containers (docs/performance.md §11).
  await step('billed', () =>
    measureBilled({
      origins: 200,
      eventsPerSecond: 100,
      warmupS: quick ? 10 : 20,
      measureS: quick ? 10 : 30,
      handshakeOrigins: quick ? 50 : 100,
    }),
  );
  results.durationSeconds = Math.round((Date.now() - started.getTime()) / 1000);

  const json = `${JSON.stringify(results, null, 2)}\n`;
  if (values.json) process.stdout.write(json);
  else {
    console.log();
    printTable(results);
  }
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'latest.json'), json);
  const dated = join(OUT_DIR, `${results.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(dated, json);
  (values.json ? console.error : console.log)(
    `\nWrote bench-results/latest.json and ${dated.slice(OUT_DIR.length - 'bench-results'.length)} (${results.durationSeconds} s)`,
  );
}

main().catch((error: unknown) => {
  console.error(`npm run bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
