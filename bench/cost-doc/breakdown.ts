/** The sections of docs/cost.md that itemise the price: each scenario's lines, and the inputs behind them. */

import {
  DYNAMODB_ITEM_OVERHEAD_BYTES,
  KINDS,
  MB_PER_VCPU,
  type ScenarioCost,
  SERIAL_SHARE,
} from '../cost-model';
import type { CostDoc } from './context';
import { money, num, table } from './format';

export function breakdown({ costs, a }: CostDoc): string {
  const lines = (c: ScenarioCost) =>
    table(
      ['line', 'quantity per million deliveries', 'per million'],
      [
        ...c.lines.map((l) => [l.item, `${num(l.quantity)} ${l.unit}`, money(l.perMillion)]),
        ['**total**', '', `**${money(c.perMillion)}**`],
      ],
    );
  return `## Breakdown

${costs
  .map(
    (c) =>
      `**${c.scenario.name}**: ${num(c.lambda.invocations)} invocations of ${num(c.lambda.durationMs)} ms on average, ${num(c.lambda.fill, 2)} messages each${c.lambda.hangingBatchShare > 0 ? ` (${(c.lambda.hangingBatchShare * 100).toFixed(1)}% of invocations hold a hanging attempt and last the full ${a.attemptTimeoutMs / 1000} s)` : ''}.\n\n${lines(c)}`,
  )
  .join('\n\n')}`;
}

export function modelInputs(doc: CostDoc): string {
  return `## Inputs

${measuredInputs(doc)}

${assumedInputs(doc)}

Lambda duration per invocation = the longer of batch CPU ÷ CPU share and the wait for the slowest
receiver (or the deadline), plus ${SERIAL_SHARE} of the shorter, + AWS calls: CPU and waiting overlap in
part (decisions.md D42, D43, measured under Lambda's CPU share in docs/performance.md §11).`;
}

function measuredInputs({ figures, results }: CostDoc): string {
  const capped = results.billed?.profiles?.defaults.cpuMicrosPerDelivery === figures.cpuMicrosPerDelivery;
  const kf = figures.kinds;
  return table(
    ['figure', 'value', 'source'],
    [
      [
        capped
          ? 'CPU per delivery, whole path (dispatcher, TLS connections, AWS SDK calls)'
          : 'CPU per delivery, whole path (dispatcher + AWS SDK calls + runner)',
        `${num(figures.cpuMicrosPerDelivery)} µs`,
        capped
          ? `\`npm run bench\` billed: the defaults under 256 MB of CPU share, 200 receivers (D42); lean's own ${num(figures.cpuMicrosPerDeliveryByProfile?.lean ?? figures.cpuMicrosPerDelivery)} µs (D43)`
          : '`npm run bench` endToEnd (upper bound)',
      ],
      [
        'write units per delivery: healthy / failing / hanging (index included)',
        KINDS.map((k) => num(kf[k].writeUnits)).join(' / '),
        'bench volume (item sizes) + counted writes',
      ],
      [
        'attempt-log bytes stored per delivery (items + index entry)',
        KINDS.map((k) => num(kf[k].itemBytes + kf[k].indexBytes)).join(' / '),
        `bench volume; +${DYNAMODB_ITEM_OVERHEAD_BYTES} B overhead per item`,
      ],
      [
        'wire bytes out per attempt (request + TLS)',
        `${num(kf.healthy.wireBytesPerAttempt)} B`,
        'bench apiCalls (TCP proxy)',
      ],
      [
        'log bytes per delivery at INFO: healthy / failing / hanging',
        KINDS.map((k) => num(kf[k].logBytes)).join(' / '),
        'bench volume',
      ],
      [
        'largest queue message',
        `${num(figures.largestMessageBytes)} B`,
        'bench volume: a batch of 10 fits one 64 KB request',
      ],
    ],
  );
}

function assumedInputs({ a }: CostDoc): string {
  return table(
    ['assumption', 'value', 'why'],
    [
      ['traffic', `${num(a.eventsPerSecond)} events/s, steady`, 'batch fill depends on it (table above)'],
      ['batch size / window', `${a.batchSize} / ${a.batchingWindowS} s`, "the stack's SQS event source"],
      ['memory', `${a.memoryMb} MB`, `the stack default; CPU share ${a.memoryMb}/${MB_PER_VCPU} of a vCPU`],
      [
        'AWS calls after the responses',
        `${a.awsCallMs} ms`,
        'attempt-log PutItem (and a retry SendMessage) in region',
      ],
      ['a hanging attempt', `${a.attemptTimeoutMs / 1000} s`, 'the attempt deadline (docs/protocol.md §6)'],
      [
        'Lambda platform log lines',
        `${a.platformLogBytesPerInvocation} B per invocation`,
        'START/END/REPORT (estimate)',
      ],
      [
        'connections',
        `${num(a.connections)}, traffic spread evenly; cache ${a.connectionCacheS} s; ${a.readUnitsPerCacheMiss} read unit per miss`,
        'connection reads per delivery = (1 − e^−x)/x, x = deliveries of a connection per container and cache period',
      ],
      [
        'attempt-log TTL',
        `${a.ttlDaysSuccess} days`,
        'the stack default `attemptTtlDays`; a month of storage per record',
      ],
    ],
  );
}
