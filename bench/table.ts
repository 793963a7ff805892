/**
 * The table `npm run bench` prints: the headline figure of each measurement, its baseline
 * measured in the same run, and the ratio (numbered as docs/performance.md; the JSON has all).
 */

import type { BenchResults } from './support/results';
import { fmt, ratio } from './support/stats';

type Row = [string, string, string, string];
type Cell = string | number | undefined;

const cell = (x: Cell) => (x === undefined ? '' : typeof x === 'number' ? fmt(x) : x);
const pair = (a: Cell, b: Cell) => `${cell(a)} / ${cell(b)}`;

export function tableRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const row = (label: string, value: Cell, baseline?: Cell, x?: Cell) =>
    rows.push([label, cell(value), cell(baseline), x === undefined ? '' : `${x}`]);
  const { endToEnd: e, coldStart: c, volume: v, consoleBundle: cb, batchTime: bt, rateLimit: rl } = r;
  if (e) {
    row(
      '2. local mode: events/s (burst); publish → receipt p50 / p99 ms',
      e.throughput.eventsPerSecond,
      pair(e.latency.p50Ms, e.latency.p99Ms),
    );
    row(
      '2. CPU µs per delivery, whole process; per attempt-log PutItem',
      e.throughput.cpuMicrosPerDelivery,
      e.attemptLogPutCpuMicros,
    );
    row(
      '2. retry timing error at 1, 2, 4 s, median ms',
      e.retries.gaps.map((g) => g.errorMedianMs).join(' / '),
    );
  }
  if (c) {
    const [d, sdk] = [c.dispatcher, c.sdkOnly];
    row(
      '3. bytes loaded at a cold start (≤ 750 KB) vs the SDK clients',
      d.bytes,
      sdk.bytes,
      ratio(d.bytes, sdk.bytes),
    );
    row('3. module init ms (≤ ×1.25 the SDK clients)', c.dispatcherInitMs, c.sdkOnlyInitMs, c.initRatio);
  }
  for (const [kind, d] of Object.entries(v?.deliveries ?? {}))
    row(
      `4. ${kind}: write units; log bytes at INFO / DEBUG`,
      d.writeUnits,
      pair(d.logBytes, d.logBytesAtDebug),
    );
  if (cb)
    row('5. web console gzip bytes (vs the 100 KB budget)', cb.gzipBytes, cb.budgetGzipBytes, cb.budgetRatio);
  for (const [name, p] of Object.entries(r.apiCalls?.phases ?? {})) {
    const calls = Object.entries(p.calls)
      .filter(([key]) => !key.startsWith('sqs:ReceiveMessage'))
      .map(([key, n]) => `${key.replace(/^(\w+):/, '')} ${Math.round((n / p.deliveries) * 100) / 100}`);
    row(`6. ${name} per delivery: ${calls.join(', ')}`, `${fmt(p.wireBytesOut / p.attempts)} B`);
  }
  const kms = r.apiCallsKms;
  if (kms?.connections)
    row(
      '7. kms store: Encrypt / Decrypt per connection',
      pair(kms.warmUp['kms:Encrypt'], kms.warmUp['kms:Decrypt']),
      kms.connections,
    );
  for (const z of bt?.sizes ?? [])
    row(
      `8. batch of ${z.batchSize}: time ÷ slowest receiver, median / worst (≤ 1.05)`,
      pair(z.ratioMedian, z.ratioMax),
    );
  if (rl) {
    row(
      `9. ${rl.limit}/s: busiest second aligned / sliding (≤ 1.25 ×)`,
      pair(rl.maxAlignedWindow, rl.maxSlidingWindow),
      rl.limit,
    );
    row(
      `9. ${rl.limit}/s: mean while waiting; duplicates; USD per million`,
      rl.throughputMean,
      rl.duplicates,
      rl.addedCostPerMillion,
    );
  }
  for (const [size, b] of Object.entries(r.bodyStorage?.cases ?? {}))
    row(
      `10. ${size} body: bytes stored vs raw; first attempt WCU ${b.writeUnits.firstWithBody}`,
      b.storedBytes,
      b.rawBytes,
      b.ratio,
    );
  const bl = r.billed;
  if (bl?.refused) row(`11. no figure: the CPU cap could not be set: ${bl.refused}`, '');
  for (const [name, p] of Object.entries(bl?.profiles ?? {})) {
    row(
      `11. ${name}: batch time ÷ slowest, Σ / median / p90 (≤ 1.05)`,
      `${p.batchTimeRatio} / ${p.batchTimeRatioMedian} / ${p.batchTimeRatioP90}`,
    );
    row(
      `11. ${name}: billed GB-s per million vs the model`,
      p.gbSecondsPerMillion,
      p.modelGbSecondsPerMillion,
      p.modelRatio,
    );
    row(
      `11. ${name}: CPU µs per delivery; new TLS connections vs the model`,
      p.cpuMicrosPerDelivery,
      p.newConnectionShare,
      p.modelNewConnectionShare,
    );
  }
  const h = bl?.handshakes;
  if (h) {
    const full = h.fullHandshake.cpuMicrosPerRequest;
    row(
      '11. TLS CPU µs: full handshake; resumed; kept alive',
      full,
      h.resumed.cpuMicrosPerRequest,
      h.reused.cpuMicrosPerRequest,
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
  for (const r of rows) console.log(line(r));
}
