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
  const { endToEnd: e, coldStart: c, volume: v, consoleBundle: cb, batchTime: bt } = r;
  const k = bt?.core;
  if (k) {
    section(`1. the core against the spec's floor (guard ≥ ${CORE_FLOOR_GUARD})`);
    row(
      `core CPU µs vs the floor${k.ratio < CORE_FLOOR_GUARD ? ': BELOW' : ''}`,
      k.coreCpuMicros,
      k.floorCpuMicros,
      k.ratio,
    );
  }
  if (e) {
    const t = e.throughput;
    section('2. end to end, local mode (fauxqs + dynalite + runner)');
    row('events/s (burst)', t.eventsPerSecond);
    row('publish → receipt p50 / p99 ms (paced)', pair(e.latency.p50Ms, e.latency.p99Ms));
    row('CPU µs/delivery, whole process (upper bound)', t.cpuMicrosPerDelivery);
    row('CPU µs per attempt-log PutItem (AWS SDK)', e.attemptLogPutCpuMicros);
    for (const g of e.retries.gaps)
      row(`retry after ${g.expectedMs / 1000} s: error median / max ms`, pair(g.errorMedianMs, g.errorMaxMs));
  }
  if (c) {
    const [d, sdk] = [c.dispatcher, c.sdkOnly];
    section(`3. cold start (${c.samples} processes each, NODE_OPTIONS=${c.nodeOptions}; vs the SDK clients)`);
    row('bytes loaded at a cold start (target ≤ 750 KB)', d.bytes, sdk.bytes, ratio(d.bytes, sdk.bytes));
    row('bundle + source map, gzip', d.assetGzipBytes, sdk.assetGzipBytes);
    row('module init ms (target ≤ ×1.25)', c.dispatcherInitMs, c.sdkOnlyInitMs, c.initRatio);
    row('with tracing on: bytes loaded / init ms', pair(d.tracedBytes, c.dispatcherTracedInitMs));
  }
  if (v) section('4. write and log volume per delivery: write units, log bytes at INFO, at DEBUG');
  for (const [kind, d] of Object.entries(v?.deliveries ?? {}))
    row(
      `${kind}: item bytes ${d.itemBytes.join('/')}`,
      `${d.writeUnits} WCU`,
      `${d.logBytes} B`,
      `${d.logBytesAtDebug} B`,
    );
  if (cb) {
    section('5. web console download, gzip (vs the 100 KB budget)');
    row('index.html + app.js + app.css', cb.gzipBytes, cb.budgetGzipBytes, cb.budgetRatio);
  }
  if (r.apiCalls) section('6. API calls per delivery, counted at the emulators; wire bytes per attempt');
  for (const [name, p] of Object.entries(r.apiCalls?.phases ?? {})) {
    const calls = Object.entries(p.calls)
      .filter(([key]) => !key.startsWith('sqs:ReceiveMessage'))
      .map(([key, n]) => `${key.replace(/^(\w+):/, '')} ${Math.round((n / p.deliveries) * 100) / 100}`);
    row(`${name}: ${calls.join(', ')}`, `${fmt(p.wireBytesOut / p.attempts)} B`);
  }
  const kms = r.apiCallsKms;
  if (kms?.connections) {
    const decrypts = Object.values(kms.phases).reduce((n, p) => n + (p.calls['kms:Decrypt'] ?? 0), 0);
    const deliveries = Object.values(kms.phases).reduce((n, p) => n + p.deliveries, 0);
    section('7. the kms secret store: KMS calls per connection created, per secret read, per delivery');
    row(
      'Encrypt / Decrypt (warm-up) / Decrypt per delivery',
      pair(kms.warmUp['kms:Encrypt'] ?? 0, kms.warmUp['kms:Decrypt'] ?? 0),
      kms.connections,
      decrypts / deliveries,
    );
  }
  if (bt)
    section(
      `8. batch time vs its slowest receiver (median ${bt.latency.medianMs} ms, p99 ${bt.latency.p99Ms} ms)`,
    );
  for (const z of bt?.sizes ?? []) {
    row(`batch of ${z.batchSize}: time ÷ slowest, median / worst (≤ 1.05)`, pair(z.ratioMedian, z.ratioMax));
    const limit = z.limitDeliveriesPerGbSecond;
    row(
      `batch of ${z.batchSize}: deliveries per GB-s vs the limit`,
      z.deliveriesPerGbSecond,
      limit,
      z.gbSecondRatio,
    );
  }
  const rl = r.rateLimit;
  if (rl) {
    const u = rl.unlimited;
    section(`9. a burst of ${rl.events} to one connection limited to ${rl.limit}/s, ${rl.pollers} pollers`);
    row(
      'busiest second, aligned / sliding (≤ 1.25 ×)',
      pair(rl.maxAlignedWindow, rl.maxSlidingWindow),
      rl.limit,
    );
    row(
      'deliveries/s while waiting, mean / lowest (≥ 0.9 ×)',
      pair(rl.throughputMean, rl.throughputMin),
      rl.limit,
    );
    row('delivered / duplicates / dead-lettered', pair(rl.delivered, rl.duplicates), rl.deadLettered);
    row(
      'per delivery: counter writes / deferrals',
      pair(rl.counterWritesPerDelivery, rl.deferralsPerDelivery),
    );
    row(
      'billed wait ms per delivery, overlapped / alone',
      pair(rl.waitMsPerDelivery, rl.waitMsPerDeliveryAlone),
    );
    row('USD added per million, limited / unlimited', pair(rl.addedCostPerMillion, u.addedCostPerMillion));
  }
  const bs = r.bodyStorage;
  if (bs)
    section(`10. request bodies kept on the first record (${bs.retentionDays} days): stored / raw bytes`);
  for (const [size, k] of Object.entries(bs?.cases ?? {})) {
    const w = k.writeUnits;
    row(
      `${size}: first attempt WCU with / without body: ${pair(w.firstWithBody, w.firstWithoutBody)}`,
      k.storedBytes,
      k.rawBytes,
      k.ratio,
    );
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
      '  billed GB-s per million, vs the model (within 15 %)',
      p.gbSecondsPerMillion,
      p.modelGbSecondsPerMillion,
      p.modelRatio,
    );
    row('  records per invocation / CPU µs per delivery', pair(p.meanFill, p.cpuMicrosPerDelivery));
    row(
      '  new TLS connections vs the model; resumed',
      p.newConnectionShare,
      p.modelNewConnectionShare,
      p.resumedShare,
    );
    row('  cap held: periods throttled / run', pair(p.throttling.throttledPeriods, p.throttling.periods));
  }
  const h = bl?.handshakes;
  const levers = h
    ? ([
        ['full handshake', h.fullHandshake],
        ['resumed', h.resumed],
        ['shared context', h.sharedContext],
        ['kept alive', h.reused],
      ] as const)
    : [];
  for (const [label, t] of levers) {
    const full = h!.fullHandshake.cpuMicrosPerRequest;
    row(
      `  TLS: ${label}, CPU µs / wall ms`,
      pair(t.cpuMicrosPerRequest, t.wallMsPerRequest),
      full,
      ratio(t.cpuMicrosPerRequest, full),
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
