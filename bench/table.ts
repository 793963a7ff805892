/** The table `npm run bench` prints: each figure, its baseline measured in the same run, and the ratio. */

import { CORE_FLOOR_GUARD } from './core-floor';
import type { BenchResults } from './support/results';
import { fmt, ratio } from './support/stats';

type Row = [string, string, string, string];
type Cell = string | number | undefined;

const cell = (x: Cell) => (x === undefined ? '' : typeof x === 'number' ? fmt(x) : x);
const pair = (a: Cell, b: Cell) => `${cell(a)} / ${cell(b)}`;

export function tableRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const section = (title: string) => rows.push([`— ${title}`, '', '', '']);
  const row = (label: string, value: Cell, baseline?: Cell, x?: Cell) =>
    rows.push([label, cell(value), cell(baseline), x === undefined ? '' : `${x}`]);
  const { overhead: o, endToEnd: e, coldStart: c, volume: v, consoleBundle: cb } = r;
  if (o) {
    const [d, sn, b] = [o.dispatcher, o.sender, o.bare];
    section(
      `1. dispatch overhead (${o.concurrency} in flight, ${o.rounds} × ${o.deliveriesPerRound}; vs bare undici)`,
    );
    row('deliveries/s', d.deliveriesPerSecond, b.deliveriesPerSecond, o.throughputRatio);
    row('CPU µs/delivery', d.cpuMicrosPerDelivery, b.cpuMicrosPerDelivery, o.cpuRatio);
    row(
      '  HttpsSender alone: deliveries/s',
      sn.deliveriesPerSecond,
      b.deliveriesPerSecond,
      o.senderThroughputRatio,
    );
    row('  HttpsSender alone: CPU µs/delivery', sn.cpuMicrosPerDelivery, b.cpuMicrosPerDelivery);
    row("  the core's own CPU µs/delivery (dispatcher − sender)", o.coreCpuMicrosPerDelivery);
    row('heap bytes allocated/delivery', d.heapBytesPerDelivery, b.heapBytesPerDelivery, o.heapRatio);
    row('log bytes/delivery (INFO)', o.logBytesPerDelivery);
  }
  if (e) {
    const t = e.throughput;
    section('3. end to end, local mode (fauxqs + dynalite + runner)');
    row('events/s (burst)', t.eventsPerSecond);
    row('publish → receipt p50 / p99 ms (paced)', pair(e.latency.p50Ms, e.latency.p99Ms));
    row('CPU µs/delivery, whole process (upper bound)', t.cpuMicrosPerDelivery);
    row('CPU µs per attempt-log PutItem (AWS SDK)', e.attemptLogPutCpuMicros);
    row('handler ms per batch / mean batch size', pair(t.batchMillisMedian, t.batchSizeMean));
    for (const g of e.retries.gaps)
      row(`retry after ${g.expectedMs / 1000} s: error median / max ms`, pair(g.errorMedianMs, g.errorMaxMs));
  }
  if (c) {
    const [d, sdk] = [c.dispatcher, c.sdkOnly];
    section(`4. cold start (${c.samples} processes each, NODE_OPTIONS=${c.nodeOptions}; vs the SDK clients)`);
    row('bytes loaded at a cold start (target ≤ 750 KB)', d.bytes, sdk.bytes, ratio(d.bytes, sdk.bytes));
    row('bytes shipped, all chunks', d.shippedBytes, sdk.shippedBytes);
    row('bundle + source map, gzip', d.assetGzipBytes, sdk.assetGzipBytes);
    row('module init ms (target ≤ ×1.25)', c.dispatcherInitMs, c.sdkOnlyInitMs, c.initRatio);
    row('module init ms without NODE_OPTIONS', c.dispatcherInitMsWithoutNodeOptions);
    row('with tracing on: bytes loaded / init ms', pair(d.tracedBytes, c.dispatcherTracedInitMs));
  }
  if (v) {
    section('5. write and log volume per delivery: write units, log bytes at INFO, at DEBUG');
    for (const [kind, d] of Object.entries(v.deliveries)) {
      const label = `${kind}: ${d.attempts} attempt(s), item bytes ${d.itemBytes.join('/')}`;
      row(label, `${d.writeUnits} WCU`, `${d.logBytes} B`, `${d.logBytesAtDebug} B`);
    }
  }
  if (cb) {
    section('6. web console download, gzip (vs the 100 KB budget)');
    row('index.html + app.js + app.css', cb.gzipBytes, cb.budgetGzipBytes, cb.budgetRatio);
  }
  for (const [name, p] of Object.entries(r.apiCalls?.phases ?? {})) {
    if (name === 'healthy')
      section('7. API calls per delivery, counted at the emulators; wire bytes per attempt');
    const calls = Object.entries(p.calls)
      .filter(([k]) => !k.startsWith('sqs:ReceiveMessage'))
      .map(([k, n]) => `${k.replace(/^(\w+):/, '')} ${Math.round((n / p.deliveries) * 100) / 100}`);
    row(`${name}: ${calls.join(', ')}`, `${fmt(p.wireBytesOut / p.attempts)} B`);
  }
  const bt = r.batchTime;
  if (bt) {
    section(
      `8. batch time vs its slowest receiver (median ${bt.latency.medianMs} ms, p99 ${bt.latency.p99Ms} ms)`,
    );
    for (const z of bt.sizes) {
      row(
        `batch of ${z.batchSize}: time ÷ slowest, median / worst (≤ 1.05)`,
        pair(z.ratioMedian, z.ratioMax),
      );
      const perGbS = z.deliveriesPerGbSecond;
      row(
        `batch of ${z.batchSize}: deliveries per GB-s vs the limit`,
        perGbS,
        z.limitDeliveriesPerGbSecond,
        z.gbSecondRatio,
      );
    }
    const k = bt.core;
    const below = k && k.ratio < CORE_FLOOR_GUARD ? ': BELOW' : '';
    if (k)
      row(
        `core CPU µs vs the spec's floor (guard ≥ ${CORE_FLOOR_GUARD}${below})`,
        k.coreCpuMicros,
        k.floorCpuMicros,
        k.ratio,
      );
  }
  const rl = r.rateLimit;
  if (rl) {
    section(`9. a burst of ${rl.events} to one connection limited to ${rl.limit}/s, ${rl.pollers} pollers`);
    row(
      'busiest second after 2 s, aligned / sliding (≤ 1.25 ×)',
      pair(rl.maxAlignedWindow, rl.maxSlidingWindow),
      rl.limit,
      rl.maxRatio,
    );
    row(
      'deliveries/s while work waits, mean / lowest (≥ 0.9 ×)',
      pair(rl.throughputMean, rl.throughputMin),
      rl.limit,
      rl.throughputRatio,
    );
    row(
      'delivered / duplicates / dead-lettered',
      `${pair(rl.delivered, rl.duplicates)} / ${rl.deadLettered}`,
      rl.events,
    );
    row(
      'per delivery: counter writes / deferrals',
      pair(rl.counterWritesPerDelivery, rl.deferralsPerDelivery),
    );
    row(
      'billed wait ms per delivery, overlapped / alone',
      pair(rl.waitMsPerDelivery, rl.waitMsPerDeliveryAlone),
    );
    row(
      'unlimited: deliveries/s (the ceiling) / wait ms',
      pair(rl.unlimited.deliveriesPerSecond, rl.unlimited.waitMs),
    );
    row(
      'added USD per million, limited / unlimited',
      pair(rl.addedCostPerMillion, rl.unlimited.addedCostPerMillion),
    );
  }
  for (const [size, k] of Object.entries(r.bodyStorage?.cases ?? {})) {
    if (size === 'small')
      section(
        `10. request bodies kept, raw-deflated on the first record, ${r.bodyStorage!.retentionDays} days`,
      );
    row(`${size}: body bytes stored / raw`, k.storedBytes, k.rawBytes, k.ratio);
    row(
      '  first attempt WCU with / without body',
      pair(k.writeUnits.firstWithBody, k.writeUnits.firstWithoutBody),
    );
    row('  added per million: WCU / GB-month', pair(k.perMillion.addedWriteUnits, k.perMillion.addedGbMonth));
  }
  const bl = r.billed;
  if (bl) section('11. what Lambda bills, under its CPU share (cgroup quota), defaults and lean profile');
  if (bl?.refused) row(`no figure: the CPU cap could not be set: ${bl.refused}`, '');
  for (const [name, p] of Object.entries(bl?.profiles ?? {})) {
    const ratios = `${p.batchTimeRatio} / ${p.batchTimeRatioMedian} / ${p.batchTimeRatioP90}`;
    row(
      `${name} (${p.memoryMb} MB, batch ${p.batchSize}): batch time ÷ slowest, Σ / median / p90`,
      ratios,
      '1.05',
    );
    row(
      '  billed GB-s per million, measured vs the model (within 15 %)',
      p.gbSecondsPerMillion,
      p.modelGbSecondsPerMillion,
      p.modelRatio,
    );
    row('  records per invocation / CPU µs per delivery', pair(p.meanFill, p.cpuMicrosPerDelivery));
    row(
      '  new TLS connections vs the keep-alive model; resumed',
      p.newConnectionShare,
      p.modelNewConnectionShare,
      p.resumedShare,
    );
    row('  cap held: periods throttled / run', pair(p.throttling.throttledPeriods, p.throttling.periods));
  }
  const h = bl?.handshakes;
  if (h) {
    const full = h.fullHandshake.cpuMicrosPerRequest;
    for (const [label, k] of [
      ['full handshake', h.fullHandshake],
      ['resumed session', h.resumed],
      ['shared TLS context', h.sharedContext],
      ['kept-alive connection', h.reused],
    ] as const)
      row(
        `  TLS at ${h.memoryMb} MB: ${label}, CPU µs / wall ms`,
        pair(k.cpuMicrosPerRequest, k.wallMsPerRequest),
        full,
        ratio(k.cpuMicrosPerRequest, full),
      );
  }
  return rows;
}

export function printTable(results: BenchResults): void {
  const rows = tableRows(results);
  const head: Row = ['figure', 'value', 'baseline', 'ratio'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) =>
    r.map((text, i) => (i === 0 ? text.padEnd(widths[i]!) : text.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(r[0].startsWith('—') ? `\n${r[0]}` : line(r));
}
