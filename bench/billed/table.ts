/** The rows `npm run bench` prints for the billed measurement (bench/index.ts prints the table). */

import { fmt } from '../support/stats';
import type { BilledFigures } from './figures';

type Row = [string, string, string, string];

export function billedRows(b: BilledFigures): Row[] {
  const title = '— 11. what Lambda bills, under its CPU share (cgroup quota), defaults and lean profile';
  if (b.refused || !b.profiles || !b.traffic)
    return [
      [title, '', '', ''],
      [`no figure: the CPU cap could not be set: ${b.refused}`, '', '', ''],
    ];
  const t = b.traffic;
  const rows: Row[] = [
    [
      `${title}: ${t.eventsPerSecond} events/s over ${t.origins} HTTPS origins, ${t.measureS} s measured`,
      '',
      '',
      '',
    ],
  ];
  for (const [name, p] of Object.entries(b.profiles)) {
    const cap = `${p.memoryMb} MB = ${p.cpuShare} of a core`;
    rows.push([
      `${name} (${cap}, batch ${p.batchSize}, window ${p.batchingWindowMs} ms): batch time ÷ slowest receiver, Σ / median / p90 (target ≤ 1.05)`,
      `${p.batchTimeRatio} / ${p.batchTimeRatioMedian} / ${p.batchTimeRatioP90}`,
      '1.05',
      `${p.batchTimeRatio}`,
    ]);
    rows.push([
      `  billed GB-s per million deliveries, measured vs the cost model (target within 15 %)`,
      fmt(p.gbSecondsPerMillion),
      fmt(p.modelGbSecondsPerMillion),
      `${p.modelRatio}`,
    ]);
    rows.push([
      '  records per invocation / CPU µs per delivery in the capped container',
      `${p.meanFill} / ${fmt(p.cpuMicrosPerDelivery)}`,
      '',
      '',
    ]);
    rows.push([
      '  attempts on a new TLS connection, measured vs the keep-alive model; share of those resumed',
      `${p.newConnectionShare}`,
      `${p.modelNewConnectionShare}`,
      `${p.resumedShare}`,
    ]);
    rows.push([
      '  cap held: periods throttled / run, ms throttled',
      `${p.throttling.throttledPeriods} / ${p.throttling.periods}`,
      `${fmt(p.throttling.throttledMs)} ms`,
      '',
    ]);
  }
  const h = b.handshakes;
  if (h) {
    rows.push([
      `  TLS levers at ${h.memoryMb} MB, ${h.origins} origins: CPU µs / wall ms per request: full handshake`,
      `${fmt(h.fullHandshake.cpuMicrosPerRequest)} / ${h.fullHandshake.wallMsPerRequest}`,
      '',
      '',
    ]);
    rows.push([
      '    resumed TLS session (vs full)',
      `${fmt(h.resumed.cpuMicrosPerRequest)} / ${h.resumed.wallMsPerRequest}`,
      fmt(h.fullHandshake.cpuMicrosPerRequest),
      `${Math.round((h.resumed.cpuMicrosPerRequest / h.fullHandshake.cpuMicrosPerRequest) * 100) / 100}`,
    ]);
    rows.push([
      '    full handshake on one shared TLS context (vs full)',
      `${fmt(h.sharedContext.cpuMicrosPerRequest)} / ${h.sharedContext.wallMsPerRequest}`,
      fmt(h.fullHandshake.cpuMicrosPerRequest),
      `${Math.round((h.sharedContext.cpuMicrosPerRequest / h.fullHandshake.cpuMicrosPerRequest) * 100) / 100}`,
    ]);
    rows.push([
      '    kept-alive connection (vs full)',
      `${fmt(h.reused.cpuMicrosPerRequest)} / ${h.reused.wallMsPerRequest}`,
      fmt(h.fullHandshake.cpuMicrosPerRequest),
      `${Math.round((h.reused.cpuMicrosPerRequest / h.fullHandshake.cpuMicrosPerRequest) * 100) / 100}`,
    ]);
  }
  return rows;
}
