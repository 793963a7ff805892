/** The closing sections of docs/cost.md: fixed monthly costs, what each option includes, and the prices used. */

import { PRICE_SOURCES } from '../prices';
import { type CostDoc, secretsCost, secretsOf } from './context';
import { money, num, table } from './format';

export function fixedCosts({ fixed, fixedKms, kmsCalls, prices }: CostDoc): string {
  return `## Fixed monthly cost per 1,000 connections

${table(
  ['item', 'per month'],
  [...fixed.lines.map((l) => [l.item, money(l.perMonth)]), ['**total**', `**${money(fixed.perMonth)}**`]],
)}

With \`secretStore: 'kms'\` (D28): ${money(fixedKms.perMonth)} a month.

${table(
  ['item', 'per month'],
  [
    ...secretsOf(fixedKms).map((l) => [l.item, money(l.perMonth)]),
    ['the other lines, as above', money(fixedKms.perMonth - secretsCost(fixedKms))],
  ],
)}

${
  kmsCalls
    ? `Counted by \`npm run bench\` (measurement \`apiCallsKms\`: the API-call run again with the kms store and the local KMS behind a counting proxy): ${num(kmsCalls.encryptsPerConnection)} Encrypt per connection created, ${num(kmsCalls.decryptsPerSecretRead)} Decrypt per secret read (a warm container's first delivery to a connection, or to a rotated version), ${num(kmsCalls.decryptsPerDelivery)} Decrypt per delivery once cached. Show Secret is one Decrypt, a rotation one Encrypt (operator actions, not priced).`
    : 'These figures predate the kms store run (`apiCallsKms`): one Decrypt per secret read is assumed.'
}

Hookdeck Team plan ${money(prices.hookdeckTeamPlanPerMonth)} a month (includes 10,000 events); Svix Professional ${money(prices.svixProfessionalPlanPerMonth)} a month (includes 50,000 messages).`;
}

/** Signing, retries, attempt log, dead letters and limits of this pipeline and the alternatives. */
const OPTIONS: string[][] = [
  [
    'this pipeline',
    'HMAC-SHA256 of timestamp + body, per attempt (docs/protocol.md §4)',
    '1 s, 2 s, 4 s, then DLQ',
    'every attempt, DynamoDB, queryable',
    'SQS DLQ with reason, redrive',
    'runs in your account; you operate it',
  ],
  [
    'EventBridge bus + API destination',
    'none: connections authenticate with Basic, API key or OAuth; no per-request signature',
    'retry policy (up to 185 times / 24 h, exponential with jitter; set to 3 here)',
    'none (metrics only)',
    'SQS DLQ per target',
    'a 5 s request timeout (AWS re:Post; newer EventBridge docs give HTTP targets up to 30 s); a rule target per connection',
  ],
  [
    'EventBridge Pipes + API destination',
    'as above',
    'by SQS redrive (visibility timeout, not 1/2/4 s)',
    'none',
    "the source queue's DLQ",
    'one pipe per source queue; as above',
  ],
  [
    'Hookdeck',
    'signs with its own scheme',
    'configurable',
    'hosted event log (7 days on Team)',
    'hosted',
    'third-party SaaS; events leave your account',
  ],
  [
    'Svix',
    'Standard Webhooks signatures',
    'automatic, on its own schedule',
    'hosted, 90 days on Professional',
    'hosted, with replay',
    'third-party SaaS; 99.99% SLA on Professional',
  ],
];

export function optionsCompared({ alts }: CostDoc): string {
  return `## What each option includes

${table(['option', 'signing', 'retries', 'attempt log', 'dead letters', 'limits to know'], OPTIONS)}

How the alternatives are priced: ${alts.map((x) => `${x.name}: ${x.formula}`).join('; ')}.
EventBridge behaviour: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html,
https://repost.aws/knowledge-center/eventbridge-api-destination-target-failure and
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-custom-bus-target-http.html.`;
}

export function pricesAndSources(): string {
  return `## Prices and sources

${table(
  ['item', 'price', 'provider page', 'read via'],
  PRICE_SOURCES.map((p) => [p.item, p.note ? `${p.price}. ${p.note}` : p.price, p.page, p.readVia ?? '']),
)}`;
}
