/** The second half of docs/cost.md: what the model is fed, the costs of options, fixed costs and prices. */

import { measureBodyStorage } from '../body-storage';
import {
  AUTO_SCALING,
  breakEvenUtilisation,
  DEFERRAL_SQS_REQUESTS,
  DYNAMODB_ITEM_OVERHEAD_BYTES,
  expectedSlowestMs,
  KINDS,
  MB_PER_VCPU,
  MONTH_S,
  provisionedDay,
  SCENARIOS,
  SERIAL_SHARE,
  sqsRequestsPerDelivery,
  writeUnitPrice,
} from '../cost-model';
import { PRICE_SOURCES } from '../prices';
import { type CostDoc, secretsCost, secretsOf } from './context';
import { money, num, table } from './format';

const TTL_NOTE = (ttl: number, lag: number) =>
  `${ttl} days, then up to ${lag} more stored and backed up until DynamoDB deletes the item (typically within 48 h)`;
const XRAY_NOTE =
  "Lambda's default rule: 1 invocation a second and 5 % of the rest; each trace retrieved once (an upper bound)";

export function inputs({ figures, results, a, costs }: CostDoc): string {
  const kf = figures.kinds;
  const each = (f: (k: (typeof KINDS)[number]) => number | string) => KINDS.map((k) => String(f(k)));
  const sqs = (k: (typeof KINDS)[number]) =>
    sqsRequestsPerDelivery(k, figures, a, costs[0]!.lambda.fill).total;
  const capped = results.billed?.profiles?.defaults.cpuMicrosPerDelivery === figures.cpuMicrosPerDelivery;
  const lean = figures.cpuMicrosPerDeliveryByProfile?.lean;
  const slowest = (n: number) => `${num(expectedSlowestMs(a.latency, n, a.attemptTimeoutMs))} ms`;
  return `## Inputs

Per delivery, counted by \`npm run bench -- --only apiCalls\` (every call at the emulators, bytes at a TCP proxy, warm
caches) and sized by \`--only volume\` (DynamoDB's item-size rules; an exhausted delivery parked for real). A hanging
chain makes the failing one's calls (its 4 × 30 s are not run).

${table(
  ['per delivery', ...KINDS],
  [
    ['attempts', ...each((k) => num(kf[k].attempts))],
    [
      `SQS requests (publish, receive and delete at ${num(costs[0]!.lambda.fill, 2)} a batch, retries, dead letter)`,
      ...each((k) => num(sqs(k))),
    ],
    [
      'DynamoDB write requests / write units (index and parked item included)',
      ...each((k) => `${num(kf[k].dynamoWrites)} / ${num(kf[k].writeUnits)}`),
    ],
    [
      `attempt-log bytes stored (+${DYNAMODB_ITEM_OVERHEAD_BYTES} B per item)`,
      ...each((k) => num(kf[k].itemBytes + kf[k].indexBytes)),
    ],
    ['log bytes at INFO / DEBUG', ...each((k) => `${num(kf[k].logBytes)} / ${num(kf[k].logBytesAtDebug)}`)],
    ['wire bytes out per attempt, TLS included', ...each((k) => num(kf[k].wireBytesPerAttempt))],
  ],
)}

No connection read or Secrets Manager call per delivery past the caches; the SNS \`Publish\` of a connection turning
failing is once per change of state, not priced per delivery. CPU per delivery: ${num(figures.cpuMicrosPerDelivery)} µs
${capped ? `(defaults; lean ${num(lean ?? figures.cpuMicrosPerDelivery)} µs), measured under 256 MB's CPU share against 200 receivers (\`--only billed\`, design.md §12)` : '(`--only endToEnd`, a full core: an upper bound)'}.

${table(
  ['assumption', 'value'],
  [
    ['traffic', `${num(a.eventsPerSecond)} events/s, steady, over ${num(a.connections)} connections`],
    [
      'batch size / window / memory',
      `${a.batchSize} / ${a.batchingWindowS} s / ${a.memoryMb} MB (${a.memoryMb}/${MB_PER_VCPU} of a vCPU)`,
    ],
    [
      'receiver latency',
      `log-normal, median ${a.latency.medianMs} ms, p99 ${a.latency.p99Ms} ms; the slowest of 10 ${slowest(10)}, of 100 ${slowest(100)}`,
    ],
    ['AWS calls after the responses', `${a.awsCallMs} ms (the attempt-log PutItem, in region)`],
    ['a hanging attempt', `${a.attemptTimeoutMs / 1000} s (the attempt deadline)`],
    [
      'Lambda platform log lines',
      `${a.platformLogBytesPerInvocation} B per invocation (START/END/REPORT, estimated)`,
    ],
    [
      'connection reads',
      `cache ${a.connectionCacheS} s, ${a.readUnitsPerCacheMiss} read unit a miss: (1 − e^−x)/x per delivery, x a connection's deliveries per container and period`,
    ],
    ['attempt-log TTL', TTL_NOTE(a.ttlDaysSuccess, a.ttlDeletionLagDays)],
    ['X-Ray (`tracing: true`; off by default)', XRAY_NOTE],
    ['table keys (aws/dynamodb)', 'cached per connection up to 5 min; one SDK connection per container'],
  ],
)}

Lambda duration per invocation = the longer of batch CPU ÷ CPU share and the wait for the slowest receiver (or the
deadline), plus ${SERIAL_SHARE} of the shorter, plus the AWS calls (design.md §12; performance.md §11).`;
}

/** What a per-connection rate limit adds (docs/design.md §4 "Rate limits"), from the burst benchmark (bench/rate-limit.ts). */
export function rateLimits({ results, prices }: CostDoc): string {
  const rl = results.rateLimit;
  const perDeferral = prices.dynamoDbPerMillionWriteUnits + 3 * prices.sqsPerMillionRequests;
  const perSecondWaited = 0.25 * prices.lambdaArmPerGbSecond * 1_000_000;
  const head = `## Rate limits

An unlimited connection adds nothing. A limited one adds a write per send (${money(prices.dynamoDbPerMillionWriteUnits)} a million),
${money(perDeferral)} a million deferrals (a write, a send, a receive, a delete) and ${money(perSecondWaited)} a million deliveries per second a
batch waits for a slot at 256 MB; deferrals grow with how far a burst exceeds the limit.`;
  if (!rl) return `${head}\n\nNot measured in the figures this document was made from.`;
  return `${head} Measured (\`npm run bench -- --only rateLimit\`: ${num(rl.events)} events at once to one connection
limited to ${num(rl.limit)}/s, ${num(rl.pollers)} pollers a queue): per delivery ${num(rl.counterWritesPerDelivery)} counter writes,
${num(rl.deferralsPerDelivery)} deferrals and ${num(rl.waitMsPerDelivery ?? 0)} ms of billed wait, **${money(rl.addedCostPerMillion)} a million deliveries**;
the unlimited connection of the same run: ${num(rl.unlimited.counterWrites)} counter writes, ${money(rl.unlimited.addedCostPerMillion)}.`;
}

export function keptBodies({ a, prices }: CostDoc): string {
  const failing = SCENARIOS.find((s) => s.key === 'failing10')!.mix;
  const share = failing.failing + failing.hanging;
  const perGbMonth = prices.dynamoDbStoragePerGbMonth + (a.pitr ? prices.dynamoDbPitrPerGbMonth : 0);
  const cost = (wcu: number, gb: number) =>
    (wcu / 1_000_000) * prices.dynamoDbPerMillionWriteUnits + gb * perGbMonth;
  const rows = Object.entries(measureBodyStorage(a.ttlDaysSuccess).cases).map(([size, k]) => {
    const { addedWriteUnits: wcu, addedGbMonth: gb } = k.perMillion;
    const fw = k.perMillionFailed.addedWriteUnits * share;
    const fg = k.perMillionFailed.addedGbMonth * share;
    return [
      size,
      `${num(k.rawBytes)} → ${num(k.storedBytes)}`,
      `${k.writeUnits.firstWithoutBody} → ${k.writeUnits.firstWithBody}`,
      `+${num(wcu)} WCU, +${num(gb)} GB-month: ${money(cost(wcu, gb))}`,
      `+${num(fw)} WCU, +${num(fg)} GB-month: ${money(cost(fw, fg))}`,
    ];
  });
  return `## Delivery search

Finding deliveries by user or event id (\`deliverySearch\`, on by default, off in \`lean\`) writes two
lookup items on a delivery's first attempt, one keyed by user and one by event (about 370 bytes each,
one write unit each, kept as long as that record): **+2 WCU a delivery, $1.25 a million**, and
0.74 GB-month a million at ${a.ttlDaysSuccess} days ($0.19). Reads: one Query a page, plus one per delivery listed (and
one per final failure for the parked check). The application-wide list needs no write: it merges
Queries of every connection's partitions.

## Keeping request bodies

A body is kept once, raw-deflated on a delivery's first record (design.md §5), for ${a.ttlDaysSuccess} days; measured by
\`npm run bench -- --only bodyStorage\` with small, typical and 100-key metadata. \`'failures'\` is counted at the "10% failing"
scenario's ${num(share * 100)}% failed first attempts, whose record already takes two write units.

${table(['metadata', 'body bytes, raw → stored', 'delivered first attempt WCU', "keepBodies: 'all'", "keepBodies: 'failures'"], rows)}`;
}

export function fixedCosts({ fixed, fixedKms, kmsCalls, prices }: CostDoc): string {
  const kms = kmsCalls
    ? `Counted by \`--only apiCallsKms\` (the API-call run with the kms store): ${num(kmsCalls.encryptsPerConnection)} Encrypt per connection created, ${num(kmsCalls.decryptsPerSecretRead)} Decrypt per secret read, ${num(kmsCalls.decryptsPerDelivery)} per delivery once cached.`
    : 'One Decrypt per secret read is assumed (these figures predate the `apiCallsKms` run).';
  return `## Fixed monthly cost per 1,000 connections

${table(
  ['item', 'per month'],
  [...fixed.lines.map((l) => [l.item, money(l.perMonth)]), ['**total**', `**${money(fixed.perMonth)}**`]],
)}

With \`secretStore: 'kms'\` (design.md §5): ${money(fixedKms.perMonth)} a month.

${table(
  ['item', 'per month'],
  [
    ...secretsOf(fixedKms).map((l) => [l.item, money(l.perMonth)]),
    ['the other lines, as above', money(fixedKms.perMonth - secretsCost(fixedKms))],
  ],
)}

${kms} Hookdeck's Team plan is ${money(prices.hookdeckTeamPlanPerMonth)} a month (10,000 events), Svix Professional ${money(prices.svixProfessionalPlanPerMonth)} (50,000 messages).`;
}

export function pricesAndSources(): string {
  return `## Prices and sources\n\n${PRICE_SOURCES}`;
}

/** On-demand or provisioned writes for the attempt log (`attemptLogCapacity`), steady and spiky (an hour a day at 10×). */
export function provisionedWrites({ a, prices }: CostDoc): string {
  const SPIKY = { ratio: 10, hours: 1 };
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const { target: t, stepMin, inLagMin } = AUTO_SCALING;
  const [follow, breakEven] = [provisionedDay(SPIKY, 'follow'), breakEvenUtilisation(prices)];
  const [fu, fd] = [follow.utilisation, follow.deferredShare];
  const deferred = `${pct(fd)}, in the peak's first ${follow.throttledMin} min`;
  const perM = (u?: number, d = 0) =>
    writeUnitPrice(prices, u ? { mode: 'provisioned', utilisation: u } : { mode: 'on-demand' }) +
    d * DEFERRAL_SQS_REQUESTS * prices.sqsPerMillionRequests;
  const month = (u?: number, d = 0) => money((perM(u, d) * a.eventsPerSecond * MONTH_S) / 1e6);
  const spiky = `${SPIKY.ratio}× the mean for ${SPIKY.hours} h a day`;
  const peakFloor = provisionedDay(SPIKY, 'peak').utilisation;
  const floors = 720 * (2 * prices.dynamoDbProvisionedRcuHour + prices.dynamoDbProvisionedWcuHour);
  return `## Provisioned or on-demand writes

\`attemptLogCapacity\` provisions the attempt log and its indexes, auto-scaled to a target use (${pct(t)}). A write unit
costs ${money(perM())} a million on demand and ${money(prices.dynamoDbProvisionedWcuHour)} an hour provisioned: provisioned wins above **${pct(breakEven)} use**
over the day. Auto-scaling steps every ~${stepMin} min by at most 1/${t} (a throttled write consumes nothing) and scales in
${inLagMin} min after a peak; throttled records wait on the retry queue (${DEFERRAL_SQS_REQUESTS} SQS requests each, priced). A month:
${num(a.eventsPerSecond)} events/s, one write unit each; the peak comes at once.

${table(
  ['attempt-log writes', 'traffic', 'use', 'records deferred', 'per million write units', 'a month'],
  [
    ['on-demand', 'any (double the previous peak at once)', '—', '0', money(perM()), month()],
    [`provisioned, target ${pct(t)}`, 'steady', pct(t), '0', money(perM(t)), month(t)],
    ['provisioned, floor at the peak', spiky, pct(peakFloor), '0', money(perM(peakFloor)), month(peakFloor)],
    ['provisioned, floor off-peak', spiky, pct(fu), deferred, money(perM(fu, fd)), month(fu, fd)],
  ],
)}

A floor at the peak wins only while the peak stays under ${num(t / breakEven, 2)}× the mean; following the peak defers
${pct(fd)} of the day's records and sets off the attempt-log-deferred alarm daily. So \`lean\` keeps on-demand. Choose
\`attemptLogCapacity\` for traffic within about 2× of its mean, \`minWriteCapacity\` at the peak's write units a second
÷ ${t}; the other floors cost ${money(floors)} a month.`;
}
