/**
 * The no-loss ledger of a reliability run, computed from the receivers' side: what every
 * receiver saw (and verified), what is parked per connection, what is in the dead-letter
 * queue, and what the attempt log holds, matched against what was published.
 *
 * - An expected delivery is one (event, connection) pair the publisher targeted.
 * - `delivered` = the receiver answered 2xx to a verified request of that delivery.
 * - `parked` = expected deliveries in the parked-deliveries table (exhausted, disabled
 *   connection, blocked destination: docs/design.md §9), by reason.
 * - `lost` = expected deliveries neither delivered nor parked nor in the DLQ, plus poison
 *   messages not in the DLQ. It must be 0.
 * - A duplicate send is a request the pipeline did not need to make: a second copy of an
 *   attempt the receiver already got, or an attempt after the receiver had answered 2xx.
 *   Each is explained by the record that carried it, received again after a receipt that
 *   did not end it for a fault of the product's (record-trail.ts), by a fault the scenario
 *   injected (its time window), by a 2xx the
 *   dispatcher did not see complete (the attempt log holds the accepted attempt as a
 *   timeout or a network error, so a retry followed), by an event a fault made the
 *   dispatcher fan out twice (a sibling delivery's first copy is in the fault's window), or
 *   as the knock-on of an earlier duplicate of the same delivery (a duplicated retry chain).
 *   Unexplained duplicates are a problem.
 * - Attempts logged (distinct attempt-log items that were sent) must equal attempts
 *   received (distinct (delivery, attempt) pairs the receivers saw; for a receiver whose
 *   TLS certificate the dispatcher refuses, the TCP connections it accepted). Counted
 *   exceptions: a record queued to the DLQ (received, not logged), and an attempt logged as
 *   a timeout or network error that no receiver read whole (logged, not received: the
 *   dispatcher gave up, or the connection failed, before the receiver had the request).
 */
import type { AttemptRecord } from '../../lambdas/core/types';
import type { DeliveryReceipts, ReceiverFleet } from './receivers';

/** The dispatcher's metrics totals as a run read them (test/support/metric-totals.ts). */
export interface MetricTotalsView {
  /** Metric name → its total under `[Stack]`. */
  readonly byMetric: Record<string, number>;
  /** `Deliveries` by `Result`. */
  readonly deliveries: Record<string, number>;
}

export interface PublishedEvent {
  readonly eventId: string;
  readonly userId: string;
  /** Unix ms the publish call started. */
  readonly publishedAt: number;
  /** Connection ids the event must reach, with the delivery id of each. */
  readonly deliveries: ReadonlyArray<{ readonly connectionId: string; readonly deliveryId: string }>;
}

export interface PublishedPoison {
  readonly label: string;
  /** The exact message text published. */
  readonly text: string;
  /** The dead-letter reason it must end with. */
  readonly expectedReason: string;
}

/** One parked delivery, as the ledger needs it. */
export interface ParkedEntry {
  readonly deliveryId: string;
  readonly reason: string;
}

/** One message read from the DLQ. */
export interface DlqMessage {
  readonly body: string;
}

/**
 * A queue record SQS handed the dispatcher again after a receipt that ended for a reason not
 * the product's fault (test/support/record-trail.ts): the attempt it carries may go out twice.
 */
export interface RedeliveredRecord {
  /** The cause, as the ledger prints it. */
  readonly label: string;
  /** An event record: attempt 1 of each of its deliveries. */
  readonly eventId?: string;
  /** A delivery record: this attempt of this delivery. */
  readonly deliveryId?: string;
  readonly attempt: number;
}

/** A period in which an injected fault may cause duplicate sends. */
export interface FaultWindow {
  readonly label: string;
  readonly from: number;
  readonly to: number;
}

export interface LedgerInput {
  readonly events: readonly PublishedEvent[];
  readonly poison?: readonly PublishedPoison[];
  readonly fleet: ReceiverFleet;
  readonly dlq: readonly DlqMessage[];
  /** What the parked-deliveries table holds for the run's connections. */
  readonly parked?: readonly ParkedEntry[];
  readonly attempts: readonly AttemptRecord[];
  readonly windows?: readonly FaultWindow[];
  /** Records received again, and why (an in-process dispatcher's trail): explain copies by record, not by time. */
  readonly redelivered?: readonly RedeliveredRecord[];
  /** First publish, Unix ms. */
  readonly startedAt: number;
  /** When the queue was seen drained, Unix ms. */
  readonly drainedAt: number;
}

export interface Ledger {
  readonly published: number;
  readonly poisonPublished: number;
  readonly deliveriesExpected: number;
  /** Receiver-confirmed: answered 2xx to a verified request. */
  readonly delivered: number;
  /** Expected deliveries with a DLQ message (distinct), plus poison messages in the DLQ. */
  readonly inDlq: number;
  readonly dlqByReason: Record<string, number>;
  /** Expected deliveries parked for their connection (distinct). */
  readonly parked: number;
  readonly parkedByReason: Record<string, number>;
  /** Deliveries both accepted by the receiver and parked (a 2xx the dispatcher did not see complete). */
  readonly deliveredAndParked: number;
  /** Deliveries both accepted by the receiver and dead-lettered (a 2xx the dispatcher did not see complete). */
  readonly deliveredAndDeadLettered: number;
  readonly lost: number;
  readonly lostSample: readonly string[];
  readonly duplicateSends: number;
  readonly duplicatesByCause: Record<string, number>;
  readonly unexplainedDuplicates: number;
  readonly duplicateSample: readonly string[];
  /** Requests the receivers verified, duplicates included. */
  readonly requestsReceived: number;
  readonly attemptsLogged: number;
  readonly attemptsReceived: number;
  /** Documented, counted exceptions to logged = received: attempts received, not logged. */
  readonly attemptExceptions: Record<string, number>;
  /**
   * Attempts logged that no receiver read whole, by the outcome that explains it (`timeout`,
   * `network_error`): the exchange ended before the receiver had the request. Logged =
   * received + these.
   */
  readonly loggedNotReceived: Record<string, number>;
  readonly attemptMismatchSample: readonly string[];
  /** Attempt-log items of attempts never sent (blocked destination, deleted connection…). */
  readonly refusalsLogged: number;
  /** Logged attempts a recovery check made (`trigger: 'probe'`): counted among attempts like any other. */
  readonly checksLogged: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** First publish to the last request any receiver saw. */
  readonly durationMs: number;
  /** First publish to the moment the queue was seen empty. */
  readonly drainedAfterMs: number;
  readonly eventsPerSecond: number;
  readonly deliveriesPerSecond: number;
  readonly checks: Record<string, number>;
  /** Empty when the ledger proves the run: nothing lost, everything explained. */
  readonly problems: readonly string[];
  /** The dispatcher's metrics totals, when the run checked them (test/support/metric-totals.ts). */
  readonly metrics?: MetricTotalsView;
}

const SAMPLE = 8;
const NOT_SENT: ReadonlySet<string> = new Set(['blocked', 'rejected']);
/**
 * Outcomes of an exchange that ended without a complete response. The receiver may have read
 * the request and answered (a 2xx the dispatcher saw too late: a retry follows), or never read
 * it whole (the deadline passed, or the connection failed, first). Under load both happen to
 * any receiver: a stalled event loop runs the deadline's timer before it reads what waits on
 * the socket.
 */
const CUT_SHORT: ReadonlySet<string> = new Set(['timeout', 'network_error']);

interface ParsedDlq {
  kind: 'dead-letter' | 'original';
  reason: string;
  deliveryId?: string;
  eventId?: string;
  source?: string;
  sourceBytes?: number;
  logRecord?: { deliveryId: string; attempt: number };
  raw: string;
}

function parseDlq(message: DlqMessage): ParsedDlq {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(message.body) as Record<string, unknown>;
  } catch {
    return { kind: 'original', reason: 'max_receives', raw: message.body };
  }
  if (parsed?.type === 'dead-letter') {
    const delivery = parsed.delivery as { deliveryId?: string; eventId?: string } | undefined;
    return {
      kind: 'dead-letter',
      reason: String(parsed.reason),
      deliveryId: delivery?.deliveryId,
      eventId: delivery?.eventId,
      source: typeof parsed.source === 'string' ? parsed.source : undefined,
      sourceBytes: typeof parsed.sourceBytes === 'number' ? parsed.sourceBytes : undefined,
      raw: message.body,
    };
  }
  const out: ParsedDlq = { kind: 'original', reason: 'max_receives', raw: message.body };
  if (parsed?.type === 'delivery') out.deliveryId = String(parsed.deliveryId);
  if (parsed?.type === 'event') out.eventId = String(parsed.eventId);
  if (parsed?.type === 'attempt-log') {
    const record = parsed.record as { deliveryId: string; attempt: number };
    out.logRecord = { deliveryId: record.deliveryId, attempt: record.attempt };
  }
  return out;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function computeLedger(input: LedgerInput): Ledger {
  const problems: string[] = [];
  const poison = input.poison ?? [];
  const windows = input.windows ?? [];
  const fleet = input.fleet;

  // Expected deliveries, keyed by delivery id.
  const expected = new Map<string, { event: PublishedEvent; connectionId: string }>();
  for (const event of input.events) {
    for (const d of event.deliveries) expected.set(d.deliveryId, { event, connectionId: d.connectionId });
  }
  const opaque = new Set<string>();
  for (const r of fleet.receivers) {
    if (r.connectionId && r.behaviour === 'tls-untrusted') opaque.add(r.connectionId);
  }
  // What the attempt log says of each attempt (one record each: a record is never replaced).
  const loggedOutcome = new Map<string, string>();
  for (const a of input.attempts) {
    const key = `${a.deliveryId}#${a.attempt}`;
    if (!a.test && !loggedOutcome.has(key)) loggedOutcome.set(key, a.outcome);
  }

  // DLQ.
  const dlqByReason: Record<string, number> = {};
  const deadLettered = new Map<string, string>();
  const rawEvents = new Set<string>();
  const logRecordsInDlq = new Set<string>();
  const poisonFound = new Map<string, string>();
  let duplicateDeadLetters = 0;
  let unknownDlq = 0;
  const poisonTexts = new Map(poison.map((p) => [p.text, p]));
  const eventIds = new Set(input.events.map((e) => e.eventId));
  for (const message of input.dlq) {
    const m = parseDlq(message);
    if (m.logRecord) {
      logRecordsInDlq.add(`${m.logRecord.deliveryId}#${m.logRecord.attempt}`);
      continue;
    }
    if (m.deliveryId && expected.has(m.deliveryId)) {
      if (deadLettered.has(m.deliveryId)) duplicateDeadLetters++;
      else deadLettered.set(m.deliveryId, m.reason);
      continue;
    }
    if (m.kind === 'original' && m.eventId && eventIds.has(m.eventId)) {
      rawEvents.add(m.eventId);
      continue;
    }
    const text = m.source ?? m.raw;
    // A dead letter keeps only the first bytes of a huge poison message, and says how big it was.
    const p =
      poisonTexts.get(text) ??
      poisonTexts.get(m.raw) ??
      poison.find((c) => m.sourceBytes === Buffer.byteLength(c.text) && c.text.startsWith(text));
    if (p) {
      if (poisonFound.has(p.text)) duplicateDeadLetters++;
      else poisonFound.set(p.text, m.kind === 'dead-letter' ? m.reason : 'max_receives');
      continue;
    }
    unknownDlq++;
  }
  for (const event of input.events) {
    if (!rawEvents.has(event.eventId)) continue;
    for (const d of event.deliveries) {
      if (!deadLettered.has(d.deliveryId)) deadLettered.set(d.deliveryId, 'max_receives');
    }
  }

  // Parked deliveries.
  const parkedReason = new Map<string, string>();
  let unknownParked = 0;
  for (const entry of input.parked ?? []) {
    if (expected.has(entry.deliveryId)) parkedReason.set(entry.deliveryId, entry.reason);
    else unknownParked++;
  }

  // Receipts.
  let unexpectedReceipts = 0;
  let wrongUser = 0;
  let requestsReceived = 0;
  const received = new Set<string>();
  for (const [deliveryId, r] of fleet.deliveries) {
    requestsReceived += r.sends.length;
    const want = expected.get(deliveryId);
    if (!want) {
      unexpectedReceipts++;
      continue;
    }
    if (r.userId !== want.event.userId) wrongUser++;
    for (const s of r.sends) received.add(`${deliveryId}#${s.attempt}`);
  }

  // Outcomes per expected delivery.
  let delivered = 0;
  let inDlq = 0;
  let parked = 0;
  const parkedByReason: Record<string, number> = {};
  let deliveredAndParked = 0;
  let deliveredAndDeadLettered = 0;
  const lostSample: string[] = [];
  let lost = 0;
  for (const [deliveryId, want] of expected) {
    const r = fleet.deliveries.get(deliveryId);
    const accepted = r?.acceptedAt !== undefined;
    const reason = deadLettered.get(deliveryId);
    if (accepted) delivered++;
    if (reason) {
      inDlq++;
      dlqByReason[reason] = (dlqByReason[reason] ?? 0) + 1;
    }
    if (accepted && reason) deliveredAndDeadLettered++;
    const parkedFor = parkedReason.get(deliveryId);
    if (parkedFor) {
      parked++;
      parkedByReason[parkedFor] = (parkedByReason[parkedFor] ?? 0) + 1;
      if (accepted) deliveredAndParked++;
    }
    if (!accepted && !reason && !parkedFor) {
      lost++;
      if (lostSample.length < SAMPLE) lostSample.push(`${want.event.eventId} → ${want.connectionId}`);
    }
  }
  let poisonWithoutReason = 0;
  let poisonWrongReason = 0;
  for (const p of poison) {
    const reason = poisonFound.get(p.text);
    if (!reason) {
      lost++;
      if (lostSample.length < SAMPLE) lostSample.push(`poison "${p.label}"`);
      continue;
    }
    inDlq++;
    dlqByReason[reason] = (dlqByReason[reason] ?? 0) + 1;
    if (reason === 'max_receives') poisonWithoutReason++;
    else if (reason !== p.expectedReason) poisonWrongReason++;
  }

  // Duplicates.
  const duplicatesByCause: Record<string, number> = {};
  const duplicateSample: string[] = [];
  let duplicateSends = 0;
  let unexplainedDuplicates = 0;
  const windowOf = (at: number) => windows.find((w) => at >= w.from && at <= w.to);
  const redelivered = new Map<string, string>();
  for (const r of input.redelivered ?? [])
    redelivered.set(`${r.deliveryId ?? r.eventId}#${r.attempt}`, r.label);
  /** A second copy of an attempt whose record (the delivery's, or its event's for attempt 1) SQS handed over again. */
  const carriedAgain = (deliveryId: string, eventId: string, attempt: number) =>
    redelivered.get(`${deliveryId}#${attempt}`) ??
    (attempt === 1 ? redelivered.get(`${eventId}#1`) : undefined);
  // Events a fault made the dispatcher fan out twice: one of their deliveries got attempt 1
  // twice, the first copy in a fault window. A delivery of the same event that the first fan-out
  // handed to the retry queue (its attempt could not start in time) is then sent by that message
  // and by the event again, both copies after the fault.
  const fannedOutAgain = new Map<string, string>();
  for (const [deliveryId, r] of fleet.deliveries) {
    const eventId = expected.get(deliveryId)?.event.eventId;
    const firsts = r.sends.filter((s) => s.attempt === 1);
    const w = firsts.length > 1 ? windowOf(firsts[0]!.at) : undefined;
    if (eventId && w) fannedOutAgain.set(eventId, w.label);
  }
  for (const [deliveryId, r] of fleet.deliveries) {
    const eventId = expected.get(deliveryId)?.event.eventId;
    if (!eventId) continue;
    const firstCopy = new Map<number, number>();
    let knockOn: string | undefined;
    for (const s of r.sends) {
      const first = firstCopy.get(s.attempt);
      const afterAccepted = r.acceptedAttempt !== undefined && s.attempt > r.acceptedAttempt;
      if (first === undefined) firstCopy.set(s.attempt, s.at);
      if (first === undefined && !afterAccepted) continue;
      duplicateSends++;
      let cause: string | undefined;
      const acceptedAs = afterAccepted ? loggedOutcome.get(`${deliveryId}#${r.acceptedAttempt}`) : undefined;
      if (acceptedAs && CUT_SHORT.has(acceptedAs)) {
        cause = `receiver answered 2xx, but the dispatcher did not see the answer complete (logged as ${acceptedAs}, so retried)`;
      } else {
        const w = windowOf(first ?? acceptedSendAt(r));
        const again = fannedOutAgain.get(eventId);
        const record = first === undefined ? undefined : carriedAgain(deliveryId, eventId, s.attempt);
        if (record) cause = record;
        else if (w) cause = w.label;
        else if (knockOn) cause = `knock-on of an earlier duplicate (${knockOn})`;
        else if (again) cause = `handed to the retry queue, then its event fanned out again: ${again}`;
      }
      if (!cause) {
        unexplainedDuplicates++;
        cause = 'unexplained';
      } else if (!cause.startsWith('knock-on') && !knockOn) {
        knockOn = cause;
      }
      duplicatesByCause[cause] = (duplicatesByCause[cause] ?? 0) + 1;
      if (duplicateSample.length < SAMPLE) {
        duplicateSample.push(`${deliveryId} attempt ${s.attempt} (${sendsSummary(r)}): ${cause}`);
      }
    }
  }

  // Attempts logged vs received.
  const logged = new Set<string>();
  const loggedOpaque = new Map<string, number>();
  const deliveredLogged = new Set<string>();
  const attemptsOf = new Map<string, Set<number>>();
  let refusalsLogged = 0;
  let checksLogged = 0;
  for (const a of input.attempts) {
    if (a.test || !expected.has(a.deliveryId)) continue;
    if (NOT_SENT.has(a.outcome)) {
      refusalsLogged++;
      continue;
    }
    const key = `${a.deliveryId}#${a.attempt}`;
    if (logged.has(key)) continue;
    logged.add(key);
    if (a.trigger === 'probe') checksLogged++;
    if (!attemptsOf.has(a.deliveryId)) attemptsOf.set(a.deliveryId, new Set());
    attemptsOf.get(a.deliveryId)!.add(a.attempt);
    if (a.outcome === 'delivered') deliveredLogged.add(a.deliveryId);
    if (opaque.has(a.connectionId))
      loggedOpaque.set(a.connectionId, (loggedOpaque.get(a.connectionId) ?? 0) + 1);
  }
  const attemptExceptions: Record<string, number> = {};
  const loggedNotReceived: Record<string, number> = {};
  const attemptMismatchSample: string[] = [];
  const except = (what: string) => {
    attemptExceptions[what] = (attemptExceptions[what] ?? 0) + 1;
  };
  let unexplainedAttempts = 0;
  for (const key of received) {
    if (logged.has(key)) continue;
    if (logRecordsInDlq.has(key))
      except('sent; its attempt-log record is in the DLQ (D2 fallback exhausted)');
    else {
      unexplainedAttempts++;
      if (attemptMismatchSample.length < SAMPLE) attemptMismatchSample.push(`received, not logged: ${key}`);
    }
  }
  for (const key of logged) {
    const deliveryId = key.slice(0, key.lastIndexOf('#'));
    if (received.has(key) || opaque.has(expected.get(deliveryId)!.connectionId)) continue;
    const outcome = loggedOutcome.get(key)!;
    if (CUT_SHORT.has(outcome)) {
      loggedNotReceived[outcome] = (loggedNotReceived[outcome] ?? 0) + 1;
      continue;
    }
    unexplainedAttempts++;
    if (attemptMismatchSample.length < SAMPLE) attemptMismatchSample.push(`logged, not received: ${key}`);
  }
  let opaqueReceived = 0;
  for (const connectionId of opaque) {
    const seen = fleet.connectionsOf(connectionId);
    opaqueReceived += seen;
    const logs = loggedOpaque.get(connectionId) ?? 0;
    if (seen !== logs) {
      unexplainedAttempts += Math.abs(seen - logs);
      attemptMismatchSample.push(`${connectionId}: ${logs} attempts logged, ${seen} TLS connections seen`);
    }
  }
  const attemptsLogged = logged.size;
  const attemptsReceived = received.size + opaqueReceived;

  // Delivered means "a 2xx logged"; dead-lettered exhausted deliveries carry their whole chain.
  let deliveredNotLogged = 0;
  let dlqWithoutHistory = 0;
  for (const [deliveryId] of expected) {
    const r = fleet.deliveries.get(deliveryId);
    const reason = deadLettered.get(deliveryId) ?? parkedReason.get(deliveryId);
    if (r?.acceptedAt !== undefined && !reason && !deliveredLogged.has(deliveryId)) {
      if (![...logRecordsInDlq].some((k) => k.startsWith(deliveryId))) deliveredNotLogged++;
    }
    if (reason === 'exhausted') {
      const got = attemptsOf.get(deliveryId) ?? new Set<number>();
      const last = Math.max(0, ...got);
      for (let n = 1; n <= last; n++) {
        if (!got.has(n)) {
          dlqWithoutHistory++;
          break;
        }
      }
      if (last < 4) dlqWithoutHistory++;
    }
  }

  // Latency and throughput.
  const latencies: number[] = [];
  let lastSend = input.startedAt;
  for (const [deliveryId, r] of fleet.deliveries) {
    const want = expected.get(deliveryId);
    for (const s of r.sends) lastSend = Math.max(lastSend, s.at);
    if (want && r.sends.length > 0) latencies.push(r.sends[0]!.at - want.event.publishedAt);
  }
  latencies.sort((a, b) => a - b);
  const durationMs = Math.max(1, Math.max(lastSend, input.startedAt) - input.startedAt);

  const checks: Record<string, number> = {
    signatureFailures: fleet.counters.rejected,
    malformedRequests: fleet.counters.malformed,
    misrouted: fleet.counters.misrouted + wrongUser,
    bodyChanged: fleet.counters.bodyChanged,
    redirectsFollowed: fleet.counters.redirectsFollowed,
    unexpectedReceipts,
    unknownDlqMessages: unknownDlq,
    unknownParked,
    duplicateDeadLetters,
    deliveredNotLogged,
    dlqWithoutHistory,
    poisonWithoutReason,
    poisonWrongReason,
    unexplainedAttempts,
  };
  if (lost > 0) problems.push(`${lost} lost: ${lostSample.join('; ')}`);
  if (unexplainedDuplicates > 0) problems.push(`${unexplainedDuplicates} unexplained duplicate sends`);
  for (const [name, value] of Object.entries(checks)) {
    if (value > 0 && name !== 'duplicateDeadLetters') problems.push(`${name} = ${value}`);
  }
  if (unexplainedAttempts > 0) problems.push(`attempt mismatches: ${attemptMismatchSample.join('; ')}`);

  const seconds = durationMs / 1000;
  return {
    published: input.events.length,
    poisonPublished: poison.length,
    deliveriesExpected: expected.size,
    delivered,
    inDlq,
    dlqByReason,
    parked,
    parkedByReason,
    deliveredAndParked,
    deliveredAndDeadLettered,
    lost,
    lostSample,
    duplicateSends,
    duplicatesByCause,
    unexplainedDuplicates,
    duplicateSample,
    requestsReceived,
    attemptsLogged,
    attemptsReceived,
    attemptExceptions,
    loggedNotReceived,
    attemptMismatchSample,
    refusalsLogged,
    checksLogged,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? 0 },
    durationMs,
    drainedAfterMs: Math.max(0, input.drainedAt - input.startedAt),
    eventsPerSecond: input.events.length / seconds,
    deliveriesPerSecond: expected.size / seconds,
    checks,
    problems,
  };
}

function acceptedSendAt(r: DeliveryReceipts): number {
  return r.sends.find((s) => s.attempt === r.acceptedAttempt)?.at ?? r.acceptedAt ?? 0;
}

function sendsSummary(r: DeliveryReceipts): string {
  return r.sends.map((s) => `#${s.attempt}→${s.answer}`).join(' ');
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** The ledger as the table the load run and the fault suite print. */
export function formatLedger(l: Ledger, title?: string): string {
  const reasons = Object.entries(l.dlqByReason)
    .map(([r, n]) => `${r} ${int(n)}`)
    .join(', ');
  const parkedReasons = Object.entries(l.parkedByReason)
    .map(([r, n]) => `${r} ${int(n)}`)
    .join(', ');
  const causes = Object.entries(l.duplicatesByCause)
    .map(([c, n]) => `      ${int(n)} × ${c}`)
    .join('\n');
  const exceptions = [
    ...Object.entries(l.attemptExceptions).map(([c, n]) => `${int(n)} ${c}`),
    ...Object.entries(l.loggedNotReceived).map(
      ([outcome, n]) => `${int(n)} logged as ${outcome}, never read whole by the receiver`,
    ),
  ].join('; ');
  const rows: Array<[string, string]> = [
    [
      'published',
      `${int(l.published)} events${l.poisonPublished ? ` + ${int(l.poisonPublished)} poison` : ''}`,
    ],
    ['deliveries expected', int(l.deliveriesExpected)],
    ['delivered (receiver-confirmed)', int(l.delivered)],
    ['parked', `${int(l.parked)}${parkedReasons ? ` (${parkedReasons})` : ''}`],
    ['in DLQ', `${int(l.inDlq)}${reasons ? ` (${reasons})` : ''}`],
    ['lost', int(l.lost)],
    [
      'duplicate sends',
      `${int(l.duplicateSends)}${l.unexplainedDuplicates ? ` (${l.unexplainedDuplicates} unexplained)` : ''}`,
    ],
    [
      'attempts logged vs received',
      `${int(l.attemptsLogged)} vs ${int(l.attemptsReceived)}${l.checksLogged ? ` (${int(l.checksLogged)} recovery checks)` : ''}${exceptions ? ` (exceptions: ${exceptions})` : ''}`,
    ],
    ['p50/p99 publish→first-receipt', `${int(l.latencyMs.p50)} ms / ${int(l.latencyMs.p99)} ms`],
    [
      'events/s',
      `${l.eventsPerSecond.toFixed(1)} (${l.deliveriesPerSecond.toFixed(1)} deliveries/s, ${int(l.requestsReceived)} requests in ${(l.durationMs / 1000).toFixed(1)} s; drained after ${(l.drainedAfterMs / 1000).toFixed(1)} s)`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  if (causes) lines.splice(6, 0, causes);
  const failed = Object.entries(l.checks).filter(([, v]) => v > 0);
  if (failed.length) lines.push(`  checks: ${failed.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  if (l.metrics) {
    const m = l.metrics;
    lines.push(
      `  metrics (EMF totals)  attempts ${int(m.byMetric.Attempts ?? 0)}, delivered ${int(m.deliveries.delivered ?? 0)}, parked ${int(m.deliveries.parked ?? 0)}, dead-lettered ${int(m.deliveries.dead_lettered ?? 0)}, recovered ${int(m.deliveries.recovered ?? 0)}, dead letters ${int(m.byMetric.DeadLetters ?? 0)}, retries ${int(m.byMetric.RetriesScheduled ?? 0)}`,
    );
  }
  for (const p of l.problems) lines.push(`  PROBLEM: ${p}`);
  return `${title ? `${title}\n` : ''}${lines.join('\n')}`;
}

/** One line, for README tables and test logs. */
export function ledgerLine(l: Ledger): string {
  return [
    `published ${int(l.published)}${l.poisonPublished ? ` (+${l.poisonPublished} poison)` : ''}`,
    `expected ${int(l.deliveriesExpected)}`,
    `delivered ${int(l.delivered)}`,
    `parked ${int(l.parked)}`,
    `in DLQ ${int(l.inDlq)}`,
    `lost ${int(l.lost)}`,
    `duplicates ${int(l.duplicateSends)}`,
    `attempts logged ${int(l.attemptsLogged)} vs received ${int(l.attemptsReceived)}`,
    `p50/p99 ${int(l.latencyMs.p50)}/${int(l.latencyMs.p99)} ms`,
    `${l.eventsPerSecond.toFixed(1)} events/s`,
  ].join(' · ');
}
