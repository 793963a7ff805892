/**
 * The ledger is the proof, so it is tested too: it must see a loss, an unexplained
 * duplicate, an attempt the log and the receivers disagree on, and poison without a reason.
 * Pure: no services, no receivers listening.
 */

import { MetricTotals, metricProblems, resentCopies } from '../support/metric-totals';
import { attempt, event, fleetWith, ledger } from './ledger-fixtures';

it('counts a delivery neither received nor dead-lettered as lost', () => {
  const l = ledger({
    events: [event(1), event(2)],
    fleet: fleetWith('ok', { dlv_1_con_a: [[1, 2_000, '200']] }),
    attempts: [attempt(1, 1, 'delivered')],
  });
  expect(l.lost).toBe(1);
  expect(l.lostSample).toEqual(['evt_2 → con_a']);
  expect(l.problems.join()).toContain('1 lost');
});

it('counts a dead-lettered delivery with its whole chain as in the DLQ, not lost', () => {
  const l = ledger({
    fleet: fleetWith('fail', {
      dlv_1_con_a: [
        [1, 2_000, '500'],
        [2, 3_000, '500'],
        [3, 5_000, '500'],
        [4, 9_000, '500'],
      ],
    }),
    dlq: [
      {
        body: JSON.stringify({
          type: 'dead-letter',
          reason: 'exhausted',
          delivery: { deliveryId: 'dlv_1_con_a' },
        }),
      },
    ],
    attempts: [1, 2, 3, 4].map((a) => attempt(1, a, 'http_error')),
  });
  expect(l).toMatchObject({
    lost: 0,
    inDlq: 1,
    dlqByReason: { exhausted: 1 },
    attemptsLogged: 4,
    attemptsReceived: 4,
    problems: [],
  });
});

it('counts a parked delivery with its whole chain as parked, not lost', () => {
  const l = ledger({
    fleet: fleetWith('fail', {
      dlv_1_con_a: [
        [1, 2_000, '500'],
        [2, 3_000, '500'],
        [3, 5_000, '500'],
        [4, 9_000, '500'],
      ],
    }),
    parked: [{ deliveryId: 'dlv_1_con_a', reason: 'exhausted' }],
    attempts: [1, 2, 3, 4].map((a) => attempt(1, a, 'http_error')),
  });
  expect(l).toMatchObject({ lost: 0, parked: 1, parkedByReason: { exhausted: 1 }, inDlq: 0, problems: [] });
});

it('counts a delivery a recovery check got through after its chain as delivered, its checks among its attempts', () => {
  const sends: Array<[number, number, string]> = [
    [1, 2_000, '500'],
    [2, 3_000, '500'],
    [3, 5_000, '500'],
    [4, 9_000, '500'],
    [5, 69_000, '500'],
    [6, 369_000, '200'],
  ];
  const check = (a: number, outcome: 'http_error' | 'delivered') => ({
    ...attempt(1, a, outcome),
    trigger: 'probe' as const,
  });
  const l = ledger({
    fleet: fleetWith('ok', { dlv_1_con_a: sends }),
    attempts: [
      ...[1, 2, 3, 4].map((a) => attempt(1, a, 'http_error')),
      check(5, 'http_error'),
      check(6, 'delivered'),
    ],
  });
  expect(l).toMatchObject({
    lost: 0,
    delivered: 1,
    parked: 0,
    attemptsLogged: 6,
    attemptsReceived: 6,
    checksLogged: 2,
    problems: [],
  });
});

it('counts a parked delivery whose checks failed as parked with its whole history', () => {
  const l = ledger({
    fleet: fleetWith('fail', {
      dlv_1_con_a: [1, 2, 3, 4, 5].map((a): [number, number, string] => [a, a * 1_000, '500']),
    }),
    parked: [{ deliveryId: 'dlv_1_con_a', reason: 'exhausted' }],
    attempts: [
      ...[1, 2, 3, 4].map((a) => attempt(1, a, 'http_error')),
      { ...attempt(1, 5, 'http_error'), trigger: 'probe' as const },
    ],
  });
  expect(l).toMatchObject({ lost: 0, parked: 1, checksLogged: 1, problems: [] });
  expect(l.checks.dlqWithoutHistory).toBe(0);
});

it('flags a parked exhausted delivery whose chain is incomplete in the attempt log', () => {
  const l = ledger({
    fleet: fleetWith('fail', { dlv_1_con_a: [[1, 2_000, '500']] }),
    parked: [{ deliveryId: 'dlv_1_con_a', reason: 'exhausted' }],
    attempts: [attempt(1, 1, 'http_error')],
  });
  expect(l.checks.dlqWithoutHistory).toBe(1);
  expect(l.problems.length).toBeGreaterThan(0);
});

it('explains a second copy of an attempt by the fault window of its first copy, and flags it otherwise', () => {
  const fleet = fleetWith('ok', {
    dlv_1_con_a: [
      [1, 2_000, '200'],
      [1, 9_000, '200'],
    ],
  });
  const attempts = [attempt(1, 1, 'delivered')];
  const explained = ledger({ fleet, attempts, windows: [{ label: 'killed', from: 1_500, to: 2_500 }] });
  expect(explained).toMatchObject({
    duplicateSends: 1,
    duplicatesByCause: { killed: 1 },
    unexplainedDuplicates: 0,
    problems: [],
  });
  const unexplained = ledger({ fleet, attempts, windows: [{ label: 'killed', from: 5_000, to: 6_000 }] });
  expect(unexplained.unexplainedDuplicates).toBe(1);
  expect(unexplained.problems.join()).toContain('unexplained duplicate');
});

it('explains a second copy of an attempt by its record received again, whatever the time, and only by that record', () => {
  const fleet = fleetWith('flaky', {
    dlv_1_con_a: [
      [1, 2_000, '503'],
      [2, 30_000, '503'],
      [2, 40_000, '200'],
      [1, 50_000, '200'],
    ],
  });
  const attempts = [attempt(1, 1, 'http_error'), attempt(1, 2, 'delivered')];
  const label = 'its record was redelivered (x): attempt sent again';
  // Attempt 2's retry record and the event (attempt 1 of each of its deliveries) came back.
  const explained = ledger({
    fleet,
    attempts,
    redelivered: [
      { label, deliveryId: 'dlv_1_con_a', attempt: 2 },
      { label, eventId: 'evt_1', attempt: 1 },
    ],
  });
  expect(explained).toMatchObject({ duplicateSends: 2, duplicatesByCause: { [label]: 2 }, problems: [] });
  // Another delivery's record, or another attempt's, explains nothing.
  const unexplained = ledger({
    fleet,
    attempts,
    redelivered: [
      { label, deliveryId: 'dlv_2_con_a', attempt: 2 },
      { label, deliveryId: 'dlv_1_con_a', attempt: 3 },
      { label, eventId: 'evt_2', attempt: 1 },
    ],
  });
  expect(unexplained.unexplainedDuplicates).toBe(2);
});

it('reports an attempt the receiver saw but the attempt log does not hold', () => {
  const l = ledger({
    fleet: fleetWith('flaky', {
      dlv_1_con_a: [
        [1, 2_000, '503'],
        [2, 3_000, '200'],
      ],
    }),
    attempts: [attempt(1, 2, 'delivered')],
  });
  expect(l).toMatchObject({ attemptsLogged: 1, attemptsReceived: 2 });
  expect(l.attemptMismatchSample).toEqual(['received, not logged: dlv_1_con_a#1']);
  expect(l.problems.length).toBeGreaterThan(0);
});

it('finds poison by its dead letter, and flags poison that reached the DLQ without a reason', () => {
  const poison = [
    { label: 'bad JSON', text: '{oops', expectedReason: 'invalid_message' },
    { label: 'too big', text: '{"v":1,"type":"event","big":true}', expectedReason: 'invalid_payload' },
  ];
  const l = ledger({
    events: [],
    poison,
    dlq: [
      { body: JSON.stringify({ type: 'dead-letter', reason: 'invalid_message', source: '{oops' }) },
      { body: '{"v":1,"type":"event","big":true}' },
    ],
  });
  expect(l).toMatchObject({ lost: 0, inDlq: 2, dlqByReason: { invalid_message: 1, max_receives: 1 } });
  expect(l.checks.poisonWithoutReason).toBe(1);
});

describe('the metrics check', () => {
  /** The EMF totals a dispatcher would emit: `Attempts`, `AttemptDuration`, `Deliveries` by result. */
  const totals = (t: {
    attempts: number;
    durations?: number;
    delivered?: number;
    parked?: number;
    deadLettered?: number;
    deadLetters?: number;
  }) => {
    const m = new MetricTotals();
    m.merge({
      byMetric: {
        Attempts: t.attempts,
        AttemptDuration: t.durations ?? t.attempts,
        DeadLetters: t.deadLetters ?? 0,
      },
      deliveries: { delivered: t.delivered ?? 0, parked: t.parked ?? 0, dead_lettered: t.deadLettered ?? 0 },
    });
    return m;
  };
  const ids = new Set(['dlv_1_con_a']);
  const once = { dlv_1_con_a: [[1, 2_000, '200']] as Array<[number, number, string]> };
  const twice = {
    dlv_1_con_a: [
      [1, 2_000, '200'],
      [1, 9_000, '200'],
    ] as Array<[number, number, string]>,
  };
  const check = (
    m: MetricTotals,
    sends: Record<string, Array<[number, number, string]>>,
    input: Partial<Parameters<typeof metricProblems>[2]> = {},
  ) => {
    const fleet = fleetWith('ok', sends);
    const attempts = [attempt(1, 1, 'delivered')];
    const l = ledger({ fleet, attempts, windows: [{ label: 'redelivered', from: 1_500, to: 2_500 }] });
    return metricProblems(m, l, {
      attempts,
      dlq: [],
      deliveryIds: ids,
      resentCopies: resentCopies(fleet.deliveries, ids),
      killed: false,
      ...input,
    });
  };

  it('holds each total to what happened by equality: one attempt logged is one counted', () => {
    expect(check(totals({ attempts: 1, delivered: 1 }), once)).toEqual([]);
    // A metric dropped, or counted twice, fails.
    expect(check(totals({ attempts: 0, delivered: 1 }), once)).toEqual([
      'metrics: attempts counted 0, expected 1 (no attempt was re-sent)',
      'metrics: attempt durations counted 0, expected 1 (no attempt was re-sent)',
    ]);
    expect(check(totals({ attempts: 2, delivered: 1 }), once).join()).toContain(
      'attempts counted 2, expected 1',
    );
    expect(check(totals({ attempts: 1, delivered: 0 }), once)).toEqual([
      'metrics: deliveries delivered counted 0, expected 1 (no duplicate sends)',
    ]);
  });

  it('counts a re-sent copy of an attempt at most once more than the log, never less than the log', () => {
    expect(resentCopies(fleetWith('ok', twice).deliveries, ids)).toBe(1);
    // Its second processing settled (counted) or failed on an infrastructure call / was killed (not).
    expect(check(totals({ attempts: 2, delivered: 2 }), twice)).toEqual([]);
    expect(check(totals({ attempts: 1, delivered: 1 }), twice)).toEqual([]);
    expect(check(totals({ attempts: 1, delivered: 1 }), twice, { killed: true })).toEqual([]);
    expect(check(totals({ attempts: 0, delivered: 1 }), twice).join()).toContain(
      'attempts counted 0, expected 1..2 (1 re-sent copies',
    );
    expect(check(totals({ attempts: 3, delivered: 1 }), twice).join()).toContain(
      'attempts counted 3, expected 1..2',
    );
  });

  it('holds parked + dead-lettered to the final failures logged, even after a recovery emptied the table', () => {
    const fleet = fleetWith('fail', { dlv_1_con_a: [[1, 2_000, '500']] });
    const attempts = [{ ...attempt(1, 1, 'http_error'), final: true }];
    // Parked, then recovered: the table is empty at the end, the park still happened.
    const l = ledger({ fleet, attempts, parked: [] });
    const input = { attempts, dlq: [], deliveryIds: ids, resentCopies: 0, killed: false };
    expect(metricProblems(totals({ attempts: 1, parked: 1 }), l, input)).toEqual([]);
    expect(metricProblems(totals({ attempts: 1, parked: 0 }), l, input)).toEqual([
      'metrics: final failures (parked + dead-lettered) counted 0, expected 1 (no duplicate sends)',
    ]);
  });

  it('counts a delivery parked and then recovered once as parked and once as recovered, never a second delivered', () => {
    const fleet = fleetWith('fail', {
      dlv_1_con_a: [
        [1, 2_000, '500'],
        [2, 3_000, '200'],
      ],
    });
    const attempts = [
      { ...attempt(1, 1, 'http_error'), final: true },
      { ...attempt(1, 2, 'delivered'), final: true },
    ];
    const l = ledger({ fleet, attempts, parked: [] });
    const input = { attempts, dlq: [], deliveryIds: ids, resentCopies: 0, killed: false };
    const m = (t: { delivered?: number; recovered: number }) => {
      const counted = totals({ attempts: 2, parked: 1, delivered: t.delivered });
      counted.deliveries.recovered = t.recovered;
      return counted;
    };
    expect(metricProblems(m({ recovered: 1 }), l, input)).toEqual([]);
    // Counted as delivered too (the double count of a recovered delivery): 2 final results for 1.
    expect(metricProblems(m({ delivered: 1, recovered: 0 }), l, input)).toEqual([
      'metrics: deliveries delivered counted 1, expected 0 (no duplicate sends)',
      'metrics: deliveries recovered counted 0, expected 1 (no duplicate sends)',
    ]);
  });

  it('holds dead letters to the letters in the DLQ', () => {
    const letter = {
      body: JSON.stringify({
        type: 'dead-letter',
        reason: 'exhausted',
        delivery: { deliveryId: 'dlv_1_con_a' },
      }),
    };
    expect(check(totals({ attempts: 1, delivered: 1, deadLetters: 1 }), once, { dlq: [letter] })).toEqual([]);
    expect(check(totals({ attempts: 1, delivered: 1 }), once, { dlq: [letter] })).toEqual([
      'metrics: dead letters counted 0, expected 1 (every letter is a DLQ message)',
    ]);
  });

  it("reads a child dispatcher's EMF file, and names a line that is not a document", () => {
    const doc = {
      _aws: {
        Timestamp: 1,
        CloudWatchMetrics: [
          { Namespace: 'Webhooks', Dimensions: [['Stack']], Metrics: [{ Name: 'Attempts', Unit: 'Count' }] },
        ],
      },
      Stack: 'faults',
      Attempts: 3,
    };
    const { totals: t, unreadable } = MetricTotals.fromFile(
      `${JSON.stringify(doc)}\n${JSON.stringify(doc)}\n{"_aws":\n`,
    );
    expect(t.byMetric.Attempts).toBe(6);
    expect(unreadable).toEqual(['{"_aws":']);
  });
});
