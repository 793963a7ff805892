/**
 * `npm run bench`: the six measurements of docs/performance.md, each against a baseline
 * measured in the same run. Prints a table and writes bench-results/latest.json plus a
 * dated copy. Loopback only; bounded to a few minutes on a shared 2-core machine.
 *
 *   npm run bench                          # everything
 *   npm run bench -- --only overhead,signing
 *   npm run bench -- --quick               # fewer rounds: a smoke run, not figures to publish
 *   npm run bench -- --only billed --json  # the results as JSON on stdout instead of the table
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { testPki } from '../test/support/pki';
import { startReceiverProcess } from '../test/support/receivers';
import { measureApiCalls } from './api-calls';
import { measureBatchTime } from './batch-time';
import { measureBilled } from './billed';
import { billedRows } from './billed/table';
import { measureBodyStorage } from './body-storage';
import { bundleLikeLambda, measureColdStart } from './cold-start';
import { measureConsoleBundle } from './console-bundle';
import { CORE_FLOOR_GUARD, type CoreFloorFigures, type CoreFloorOptions } from './core-floor';
import { measureEndToEnd } from './end-to-end';
import type { OverheadFigures, OverheadOptions } from './overhead';
import { measureRateLimit } from './rate-limit';
import { measureSigning } from './signing';
import type { BenchResults } from './support/results';
import { fmt, ratio } from './support/stats';
import { measureVolume } from './volume';

const MEASUREMENTS = [
  'overhead',
  'signing',
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

/**
 * (1) and the core-floor part of (8) run from a bundle built with the deployed dispatcher's
 * esbuild options, in a process of their own (bench/bundled-process.ts says why).
 */
function bundledProcess(): { file: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-bench-bundled-'));
  const file = join(dir, 'bundled', 'index.mjs');
  bundleLikeLambda(join(__dirname, 'bundled-process.ts'), file);
  return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

function runBundled<T>(file: string, measurement: string, options: unknown): T {
  const out = execFileSync(process.execPath, [file, measurement, JSON.stringify(options)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 5 * 60_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}

async function overhead(file: string, quick: boolean) {
  const pki = testPki();
  const receiver = await startReceiverProcess({ pki });
  try {
    const options: OverheadOptions = {
      port: receiver.port,
      caPem: pki.caPem,
      deliveries: quick ? 500 : 3_000,
      rounds: quick ? 3 : 9,
      lanes: 1,
    };
    return runBundled<OverheadFigures>(file, 'overhead', options);
  } finally {
    await receiver.stop();
  }
}

function printTable(results: BenchResults): void {
  const rows: Array<[string, string, string, string]> = [];
  const section = (title: string) => rows.push([`— ${title}`, '', '', '']);
  const o = results.overhead;
  if (o) {
    section(
      `1. dispatch overhead (${o.concurrency} in flight, ${o.rounds} rounds × ${o.deliveriesPerRound}, medians)`,
    );
    rows.push([
      'deliveries/s (vs bare undici.request)',
      fmt(o.dispatcher.deliveriesPerSecond),
      fmt(o.bare.deliveriesPerSecond),
      `${o.throughputRatio}`,
    ]);
    rows.push([
      'CPU µs/delivery',
      fmt(o.dispatcher.cpuMicrosPerDelivery),
      fmt(o.bare.cpuMicrosPerDelivery),
      `${o.cpuRatio}`,
    ]);
    if (o.sender) {
      rows.push([
        '  HTTP part alone: HttpsSender, full headers (deliveries/s)',
        fmt(o.sender.deliveriesPerSecond),
        fmt(o.bare.deliveriesPerSecond),
        `${o.senderThroughputRatio}`,
      ]);
      rows.push([
        '  HTTP part alone: CPU µs/delivery',
        fmt(o.sender.cpuMicrosPerDelivery),
        fmt(o.bare.cpuMicrosPerDelivery),
        `${ratio(o.sender.cpuMicrosPerDelivery, o.bare.cpuMicrosPerDelivery)}`,
      ]);
      rows.push([
        "  the core's own work (dispatcher − HTTP part), CPU µs/delivery",
        fmt(o.coreCpuMicrosPerDelivery),
        '',
        '',
      ]);
    }
    rows.push([
      'heap bytes allocated/delivery',
      fmt(o.dispatcher.heapBytesPerDelivery),
      fmt(o.bare.heapBytesPerDelivery),
      `${o.heapRatio}`,
    ]);
    rows.push(['log bytes/delivery (INFO)', fmt(o.logBytesPerDelivery), '', '']);
  }
  const s = results.signing;
  if (s) {
    section(`2. signing (${s.bodyBytes}-byte body, ${s.rounds} rounds × ${s.iterations})`);
    rows.push([
      'µs/delivery: buildHeaders (vs bare createHmac)',
      fmt(s.buildHeadersMicros),
      fmt(s.bareHmacMicros),
      `${s.ratio}`,
    ]);
  }
  const e = results.endToEnd;
  if (e) {
    section('3. end to end, local mode (fauxqs + dynalite + runner)');
    rows.push(['events/s (burst)', fmt(e.throughput.eventsPerSecond), '', '']);
    rows.push(['publish → receipt p50 / p99 ms (paced)', `${e.latency.p50Ms} / ${e.latency.p99Ms}`, '', '']);
    rows.push([
      'CPU µs/delivery, whole process (upper bound)',
      fmt(e.throughput.cpuMicrosPerDelivery),
      '',
      '',
    ]);
    rows.push(['CPU µs per attempt-log PutItem (AWS SDK)', fmt(e.attemptLogPutCpuMicros), '', '']);
    rows.push([
      'handler ms per batch (median) / mean batch size',
      `${e.throughput.batchMillisMedian} / ${e.throughput.batchSizeMean}`,
      '',
      '',
    ]);
    for (const g of e.retries.gaps) {
      rows.push([
        `retry after ${g.expectedMs / 1000} s: error median / max ms`,
        `${g.errorMedianMs} / ${g.errorMaxMs}`,
        `${g.expectedMs}`,
        '',
      ]);
    }
  }
  const c = results.coldStart;
  if (c) {
    section(`4. cold start (${c.samples} fresh processes each, NODE_OPTIONS=${c.nodeOptions})`);
    rows.push([
      'bytes loaded at a cold start, minified (target ≤ 750 KB; vs SDK clients alone)',
      fmt(c.dispatcher.bytes),
      fmt(c.sdkOnly.bytes),
      `${Math.round((c.dispatcher.bytes / c.sdkOnly.bytes) * 100) / 100}`,
    ]);
    rows.push([
      'bytes shipped (with chunks loaded only on import())',
      fmt(c.dispatcher.shippedBytes),
      fmt(c.sdkOnly.shippedBytes),
      '',
    ]);
    rows.push(['bundle bytes, gzip', fmt(c.dispatcher.gzipBytes), fmt(c.sdkOnly.gzipBytes), '']);
    rows.push([
      'asset (bundle + source map), gzip',
      fmt(c.dispatcher.assetGzipBytes),
      fmt(c.sdkOnly.assetGzipBytes),
      '',
    ]);
    rows.push([
      'module init ms (target ≤ ×1.25 the SDK clients alone)',
      fmt(c.dispatcherInitMs),
      fmt(c.sdkOnlyInitMs),
      `${c.initRatio}`,
    ]);
    rows.push(['module init ms without NODE_OPTIONS', fmt(c.dispatcherInitMsWithoutNodeOptions), '', '']);
    rows.push(['bytes loaded at a cold start with tracing on (D38)', fmt(c.dispatcher.tracedBytes), '', '']);
    rows.push(['module init ms with tracing on (D38)', fmt(c.dispatcherTracedInitMs), '', '']);
  }
  const v = results.volume;
  if (v) {
    section('5. write and log volume per delivery (INFO)');
    for (const [kind, d] of Object.entries(v.deliveries)) {
      rows.push([
        `${kind}: ${d.attempts} attempt(s), item bytes ${d.itemBytes.join('/')}${d.parked ? `, parked ${d.parked.itemBytes} (+${d.parked.indexBytes} index)` : ''}`,
        `${d.writeUnits} WCU${d.indexWriteUnits ? ` (${d.indexWriteUnits} index)` : ''}`,
        `${d.logBytes} B log`,
        `${d.logBytesAtDebug} B at DEBUG`,
      ]);
    }
  }
  const b = results.consoleBundle;
  if (b) {
    section('6. web console download (index.html + app.js + app.css)');
    rows.push([
      'bytes, gzip (vs the 100 KB budget)',
      fmt(b.gzipBytes),
      fmt(b.budgetGzipBytes),
      `${b.budgetRatio}`,
    ]);
    for (const [name, f] of Object.entries(b.files))
      rows.push([`  ${name}: bytes / gzip`, fmt(f.bytes), fmt(f.gzipBytes), '']);
  }
  const calls = results.apiCalls;
  if (calls) {
    section('7. API calls and wire bytes per delivery, counted at the emulators (docs/cost.md)');
    for (const [name, p] of Object.entries(calls.phases)) {
      const perDelivery = Object.entries(p.calls)
        .filter(([k]) => !k.startsWith('sqs:ReceiveMessage'))
        .map(([k, n]) => `${k.replace(/^(\w+):/, '')} ${Math.round((n / p.deliveries) * 100) / 100}`)
        .join(', ');
      rows.push([`${name}: ${perDelivery}`, `${fmt(p.wireBytesOut / p.attempts)} B/attempt`, '', '']);
    }
  }
  const bt = results.batchTime;
  if (bt) {
    section(
      `8. what Lambda bills: receivers at log-normal latency (median ${bt.latency.medianMs} ms, p99 ${bt.latency.p99Ms} ms), ${bt.memoryMb} MB`,
    );
    for (const z of bt.sizes) {
      rows.push([
        `batch of ${z.batchSize} (${z.batches} batches): time ÷ slowest receiver, median / worst (target ≤ 1.05)`,
        `${z.ratioMedian} / ${z.ratioMax}`,
        '1',
        `${z.ratioMedian}`,
      ]);
      rows.push([
        `batch of ${z.batchSize}: deliveries per GB-second (vs the physical limit)`,
        fmt(z.deliveriesPerGbSecond),
        fmt(z.limitDeliveriesPerGbSecond),
        `${z.gbSecondRatio}`,
      ]);
    }
    if (bt.core) {
      rows.push([
        `core CPU µs/delivery (bundled) vs the spec's floor (parse + check, body, id hash, signed standard + custom headers, attempt record): floor ÷ core (regression guard ≥ ${CORE_FLOOR_GUARD}${bt.core.ratio < CORE_FLOOR_GUARD ? ': BELOW' : ''})`,
        fmt(bt.core.coreCpuMicros),
        fmt(bt.core.floorCpuMicros),
        `${bt.core.ratio}`,
      ]);
      rows.push([
        "the core's outputs alone (envelope, delivery id, signed headers, record; one synchronous loop) vs the same floor: floor ÷ outputs, the ceiling of floor ÷ core",
        fmt(bt.core.outputsCpuMicros),
        fmt(bt.core.floorCpuMicros),
        `${bt.core.outputsRatio}`,
      ]);
    }
  }
  const rl = results.rateLimit;
  if (rl) {
    section(
      `9. a burst of ${rl.events} to one connection limited to ${rl.limit}/s, ${rl.pollers} pollers per queue, local mode`,
    );
    rows.push([
      'busiest one-second window after the first 2 s: aligned / sliding (target ≤ 1.25 × limit)',
      `${rl.maxAlignedWindow} / ${rl.maxSlidingWindow}`,
      `${rl.limit}`,
      `${rl.maxRatio}`,
    ]);
    rows.push([
      'deliveries/s while work waits: mean / lowest window (target ≥ 0.9 × limit)',
      `${rl.throughputMean} / ${rl.throughputMin}`,
      `${rl.limit}`,
      `${rl.throughputRatio}`,
    ]);
    rows.push([
      'delivered / duplicates / dead-lettered',
      `${rl.delivered} / ${rl.duplicates} / ${rl.deadLettered}`,
      `${rl.events}`,
      '',
    ]);
    rows.push([
      'per delivery: counter writes / deferrals / log bytes',
      `${rl.counterWritesPerDelivery} / ${rl.deferralsPerDelivery} / ${rl.logBytesPerDelivery}`,
      '',
      '',
    ]);
    rows.push([
      'per delivery: billed wait for a slot, batch waits overlapped / each alone (ms); unlimited waits (ms)',
      `${rl.waitMsPerDelivery} / ${rl.waitMsPerDeliveryAlone}; ${rl.unlimited.waitMs}`,
      '',
      '',
    ]);

    rows.push([
      'deliveries/s of the same local mode without a limit (the ceiling here)',
      fmt(rl.unlimited.deliveriesPerSecond),
      '',
      '',
    ]);
    rows.push([
      'added cost per million deliveries, USD: limited / unlimited',
      `${rl.addedCostPerMillion} / ${rl.unlimited.addedCostPerMillion}`,
      '',
      '',
    ]);
  }
  const bs = results.bodyStorage;
  if (bs) {
    section(
      `10. request bodies kept (D37): raw-deflated, on the first attempt's record, ${bs.retentionDays}-day retention`,
    );
    for (const [size, k] of Object.entries(bs.cases)) {
      rows.push([
        `${size} metadata: body bytes stored / raw`,
        fmt(k.storedBytes),
        fmt(k.rawBytes),
        `${k.ratio}`,
      ]);
      rows.push([
        `  item bytes with body / headers only / neither`,
        `${k.itemBytes.withBody} / ${k.itemBytes.headersOnly} / ${k.itemBytes.bare}`,
        '',
        '',
      ]);
      rows.push([
        '  WCU: first attempt with body / without / a later attempt',
        `${k.writeUnits.firstWithBody} / ${k.writeUnits.firstWithoutBody} / ${k.writeUnits.later}`,
        '',
        '',
      ]);
      rows.push([
        '  added per million deliveries: WCU / GB-month',
        `${fmt(k.perMillion.addedWriteUnits)} / ${k.perMillion.addedGbMonth}`,
        '',
        '',
      ]);
      rows.push([
        "  failed first attempt (503 page), keepBodies 'failures': WCU with / without; added per million failed: WCU / GB-month",
        `${k.failedWriteUnits.firstWithBody} / ${k.failedWriteUnits.firstWithoutBody}; ${fmt(k.perMillionFailed.addedWriteUnits)} / ${k.perMillionFailed.addedGbMonth}`,
        '',
        '',
      ]);
    }
  }
  if (results.billed) rows.push(...billedRows(results.billed));
  const widths = [0, 1, 2, 3].map((i) =>
    Math.max(...rows.map((r) => r[i]!.length), ['figure', 'value', 'baseline', 'ratio'][i]!.length),
  );
  const line = (r: readonly string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(line(['figure', 'value', 'baseline', 'ratio']));
  for (const r of rows) console.log(r[0].startsWith('—') ? `\n${r[0]}` : line(r));
}

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
  await step('signing', () => measureSigning(quick ? 5_000 : 20_000, quick ? 3 : 7));
  await step('volume', () => measureVolume());
  await step('bodyStorage', () => measureBodyStorage());
  await step('coldStart', () => measureColdStart(quick ? 3 : 9));
  await step('consoleBundle', () => measureConsoleBundle());
  const bundled = only.includes('overhead') || only.includes('batchTime') ? bundledProcess() : undefined;
  try {
    await step('overhead', () => overhead(bundled!.file, quick));
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
    await step('batchTime', async () => ({
      ...(await measureBatchTime({ batches10: quick ? 5 : 20, batches100: quick ? 1 : 3 })),
      core: runBundled<CoreFloorFigures>(bundled!.file, 'coreFloor', {
        deliveries: quick ? 500 : 2_000,
        rounds: quick ? 5 : 9,
      } satisfies CoreFloorOptions),
    }));
  } finally {
    bundled?.dispose();
  }
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
