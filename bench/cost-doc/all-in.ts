/** docs/cost.md's all-in sections (issue 26): each profile at a stated traffic, every line, and what each profile keeps. */

import { type AllInCost, allInProfile, costProfile } from '../all-in';
import {
  CONTAINER_LIFETIME_S,
  MB_PER_VCPU,
  SCENARIOS,
  SQS_MESSAGES_PER_REQUEST,
  scenarioCost,
} from '../cost-model';
import type { CostDoc } from './context';
import { money, num, table } from './format';

const PROFILE_NAMES = ['defaults', 'lean'] as const;

/** Issue 26's targets: the lean profile, all-in. */
const TARGETS: Array<{ key: 'healthy' | 'healthyBatched'; label: string; limit: number }> = [
  { key: 'healthy', label: 'healthy, one event per request', limit: 1.0 },
  { key: 'healthyBatched', label: 'healthy, batched publish', limit: 0.6 },
];

const total = (c: AllInCost, kind: 'variable' | 'fixed') =>
  c.lines.filter((l) => l.kind === kind).reduce((s, l) => s + l.perMillion, 0);

export function allInSummary(doc: CostDoc): string {
  const { allIn, a } = doc;
  const traffic = allIn.traffic;
  const rows = PROFILE_NAMES.flatMap((name) => {
    const costs = SCENARIOS.map((s) => allIn.profiles[name][s.key]);
    return [
      [`**${name}**, all-in`, ...costs.map((c) => `**${money(c.perMillion)}**`)],
      [`${name}: per-delivery lines`, ...costs.map((c) => money(total(c, 'variable')))],
      [`${name}: fixed costs spread`, ...costs.map((c) => money(total(c, 'fixed')))],
    ];
  });
  const lean = costProfile('lean', a);
  const invocationMs = (memoryMb: number) =>
    scenarioCost(SCENARIOS[0]!, doc.figures, doc.prices, { ...lean.a, memoryMb }).lambda.durationMs;
  return `## All-in cost per profile

Every line AWS bills for this pipeline at a stated traffic: **${num(traffic.eventsPerSecond)} events/s over
${traffic.connections.toLocaleString('en-US')} connections** (${num(allIn.profiles.defaults.healthy.deliveriesPerMonth / 1e6)} million deliveries in a 30-day month), each
fixed monthly cost (secrets, KMS, alarms, dashboard, custom metrics, Contributor Insights, idle
polling) spread over that month's deliveries as a line of its own. The per-million figures of the
sections below ("Summary", "Breakdown") are the marginal ones: the per-delivery lines alone, at the
defaults. \`npm run cost -- --json\` prints these as \`allIn\`, line by line (bench/all-in.ts).

${table(['per million deliveries', ...SCENARIOS.map((s) => s.name)], rows)}

- **SQS floor.** ReceiveMessage returns at most ${SQS_MESSAGES_PER_REQUEST} messages and DeleteMessageBatch deletes at most
  ${SQS_MESSAGES_PER_REQUEST}: the event source makes ten of each for a batch of 100. Receive and delete cost at least
  0.2 requests per message whatever the batch size.
- **Secret reads.** A container reads a connection's secret the first time it delivers to it and
  keeps it 24 h, but Lambda replaces a busy container about every ${CONTAINER_LIFETIME_S / 3600} hours (observed:
  https://xebia.com/blog/til-that-aws-lambda-terminates-instances-preemptively/; the Lambda developer guide
  says environments are retired periodically even under continuous invocation). The model counts
  one read per connection a container delivers to, per ${CONTAINER_LIFETIME_S / 3600} h, in as many containers as the
  scenario keeps warm (Little's law, at least the event source's 5 concurrent batches); with
  Secrets Manager each read is a GetSecretValue and a KMS decrypt behind it, with the kms store one
  Decrypt.
- **Bodies.** The bench's figures keep the body of a delivery whose first attempt failed
  (\`keepBodies: 'failures'\`); \`'all'\` adds the body of every delivery delivered at once, measured
  by bench/body-storage.ts (the fixtures' payload), kept for the successes' TTL.
- **Metric documents.** Each invocation writes its metrics as one EMF document to its log
  (rendered by the dispatcher's own adapter for the batch's delivered attempts; a batch with
  failures writes more, so this line is a floor for the failing scenarios).
- **Custom metrics** are the catalogue's combinations of name and dimension values (each billed in
  the months it is emitted: an upper bound).
- **Memory.** Both profiles run at ${lean.a.memoryMb} MB. At 128 MB the model saves ${money(leanWithout(doc, (x) => ({ ...x, memoryMb: 128 })))} a million on
  the lean profile but the CPU share falls to 128/${MB_PER_VCPU} of a vCPU and a healthy invocation of the lean
  profile takes ${num(invocationMs(128) / 1000, 2)} s instead of ${num(invocationMs(lean.a.memoryMb) / 1000, 2)} s in the model; the profile leaves memory to the billed benchmark's measurement under
  Lambda's CPU share (issue 26).`;
}

export function allInTargets({ allIn, allInInputs, a, costs }: CostDoc): string {
  const rows = TARGETS.map((t) => {
    const c = allIn.profiles.lean[t.key];
    return [t.label, money(t.limit), `**${money(c.perMillion)}**`, c.perMillion <= t.limit ? 'yes' : 'no'];
  });
  const line = (c: AllInCost, prefix: string) =>
    c.lines.find((l) => l.item.startsWith(prefix))?.perMillion ?? 0;
  const h = allIn.profiles.lean.healthy;
  const hb = allIn.profiles.lean.healthyBatched;
  const writes = line(h, 'DynamoDB writes');
  const publish = line(h, 'SQS publish');
  const publishBatched = line(hb, 'SQS publish');
  const healthyMarginal = costs.find((c) => c.scenario.key === 'healthy')!;
  const met = TARGETS.filter((t) => allIn.profiles.lean[t.key].perMillion <= t.limit).length;
  const verdict =
    met === TARGETS.length
      ? 'Both are met'
      : met === 0
        ? 'Neither is met, and no prop of the construct meets them'
        : 'One is met, the other is not';
  const lean = costProfile('lean', a);
  const provisioned = allInProfile(
    { ...lean, a: { ...lean.a, writeCapacity: { mode: 'provisioned', utilisation: 0.7 } } },
    allInInputs,
  );
  return `### Targets of issue 26 (lean profile, all-in)

${table(['target', 'limit', 'lean, all-in', 'met'], rows)}

${verdict}: two lines alone take most of the budget.
Every delivery's attempt record is one on-demand write unit (${money(writes)} a million), and the upstream
publish is one SendMessage per event (${money(publish)}; ${money(publishBatched)} in batches of 10). Together that is
${money(writes + publish)} one event per request and ${money(writes + publishBatched)} batched, above both limits before SQS
receives, Lambda, storage, transfer and the fixed costs (${money(h.perMillion - writes - publish)} more on the lean profile).
Provisioned capacity for the attempt log at a steady high use (the
\`attemptLogCapacity\` prop: at 70 % use a write unit costs about 0.4 of on-demand, but its size
depends on traffic the profile cannot know, and auto-scaling lags bursts, so it is not in the
profile) brings the lean profile to ${money(provisioned.healthy.perMillion)} and ${money(provisioned.healthyBatched.perMillion)} batched: closer, still above. Under
the limits needs fewer write units per delivery as well (several deliveries' records in one
item, which the attempt log's per-connection queries do not allow today). The marginal healthy figure at the
defaults, for comparison: ${money(healthyMarginal.perMillion)}.`;
}

/** What a lever left out of the lean profile would save on its healthy all-in figure. */
function leanWithout(doc: CostDoc, change: (a: CostDoc['a']) => CostDoc['a']): number {
  const lean = costProfile('lean', doc.a);
  const changed = allInProfile({ ...lean, a: change(lean.a) }, doc.allInInputs);
  return doc.allIn.profiles.lean.healthy.perMillion - changed.healthy.perMillion;
}

export function allInKeeps(doc: CostDoc): string {
  const pitr = leanWithout(doc, (a) => ({ ...a, pitr: false }));
  return `### What each profile keeps, and for how long

${table(
  ['', 'defaults', "lean (`profile: 'lean'`)"],
  [
    [
      'record of a delivery delivered at its first attempt',
      '30 days (`attemptTtl`)',
      '3 days (`deliveredAttemptTtl`)',
    ],
    ['every record of a delivery that ever failed', '30 days', '30 days'],
    [
      'request body',
      "every delivery's, on its first record (`keepBodies: 'all'`)",
      "only deliveries whose first attempt failed (`keepBodies: 'failures'`): a delivery delivered at once shows no body and cannot be resent",
    ],
    ['request headers of each attempt', 'kept', 'kept'],
    [
      'point-in-time recovery of the attempt log',
      'on (35 days)',
      `on (35 days): off would save ${money(pitr)} a million`,
    ],
    [
      'connection secrets',
      'one Secrets Manager secret each',
      'sealed with one stack KMS key in the connection item (D28): choose it when you create the stack',
    ],
    [
      'ingress batches',
      '10 records, no window',
      'up to 100, gathered for at most 1 s (`batchSize`, `maxBatchingWindow`)',
    ],
    ['attempts of a batch at once', '10 (`batchConcurrency`)', '100'],
    [
      'retries',
      '1, 2, 4 s, batches of at most 10, no window',
      'the same (the retry queue never has a window: D29)',
    ],
    ['attempt-log capacity, memory', 'on demand, 256 MB', 'the same'],
  ],
)}

Any prop given explicitly wins over the profile's value (docs/configuration.md).`;
}

export function allInLines({ allIn }: CostDoc): string {
  const section = (name: (typeof PROFILE_NAMES)[number]) => {
    const profile = allIn.profiles[name];
    const healthy = profile.healthy;
    const rows = healthy.lines.map((l, i) => [
      `${l.kind === 'fixed' ? 'fixed: ' : ''}${l.item}`,
      ...SCENARIOS.map((s) => money(profile[s.key].lines[i]!.perMillion)),
    ]);
    rows.push(['**total**', ...SCENARIOS.map((s) => `**${money(profile[s.key].perMillion)}**`)]);
    return `**${name}** (quantities in the line names are the healthy scenario's):

${table(['line', ...SCENARIOS.map((s) => s.name)], rows)}`;
  };
  return `### All-in lines per profile

${PROFILE_NAMES.map(section).join('\n\n')}`;
}
