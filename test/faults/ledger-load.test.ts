/**
 * What a busy machine does to a fault run, and how the ledger tells it from a fault of the
 * pipeline. Under load a dispatcher's deadline timer can run before its event loop reads an
 * answer already waiting, or before the receiver's process has read the request; a killed
 * invocation may have handed a delivery to the retry queue whose event then comes back. Each is
 * explained only by the evidence it leaves: the attempt log's outcome, or a sibling delivery's
 * copy in the fault window. Pure: no services, no receivers listening.
 */
import type { PublishedEvent } from '../support/ledger';
import { attempt, event, fleetWith, ledger } from './ledger-fixtures';

it('explains an attempt logged as cut short that the receiver never read, and flags one logged as answered', () => {
  // Under load the dispatcher's deadline can pass before the receiver has read the request.
  const fleet = fleetWith('ok', { dlv_1_con_a: [[2, 5_000, '200']] });
  const cutShort = ledger({ fleet, attempts: [attempt(1, 1, 'timeout'), attempt(1, 2, 'delivered')] });
  expect(cutShort).toMatchObject({
    attemptsLogged: 2,
    attemptsReceived: 1,
    loggedNotReceived: { timeout: 1 },
    problems: [],
  });
  // A record that says the receiver answered cannot be explained so: it was never sent.
  const answered = ledger({ fleet, attempts: [attempt(1, 1, 'http_error'), attempt(1, 2, 'delivered')] });
  expect(answered.loggedNotReceived).toEqual({});
  expect(answered.attemptMismatchSample).toEqual(['logged, not received: dlv_1_con_a#1']);
  expect(answered.problems.length).toBeGreaterThan(0);
});

it('explains a retry after a 2xx the attempt log holds as a timeout, whatever the receiver, and flags it after a logged delivery', () => {
  // An ok receiver answered at once; the dispatcher's event loop read the answer after its deadline.
  const fleet = fleetWith('ok', {
    dlv_1_con_a: [
      [1, 2_000, '200'],
      [2, 5_000, '200'],
    ],
  });
  const late = ledger({ fleet, attempts: [attempt(1, 1, 'timeout'), attempt(1, 2, 'delivered')] });
  expect(late).toMatchObject({ duplicateSends: 1, unexplainedDuplicates: 0, problems: [] });
  expect(Object.keys(late.duplicatesByCause)).toEqual([
    'receiver answered 2xx, but the dispatcher did not see the answer complete (logged as timeout, so retried)',
  ]);
  // Logged as delivered, the 2xx was seen: a second attempt has no such excuse.
  const seen = ledger({ fleet, attempts: [attempt(1, 1, 'delivered'), attempt(1, 2, 'delivered')] });
  expect(seen.unexplainedDuplicates).toBe(1);
});

it("explains a delivery sent twice after a fault when its event's fan-out ran twice, and only then", () => {
  // The killed invocation sent con_a's attempt 1 and handed con_b's to the retry queue; the
  // event came back after the visibility timeout: con_b got the handed-back copy and the new one.
  const twoTargets: PublishedEvent = {
    ...event(1),
    deliveries: ['con_a', 'con_b'].map((c) => ({ connectionId: c, deliveryId: `dlv_1_${c}` })),
  };
  const windows = [{ label: 'killed', from: 1_500, to: 2_500 }];
  const attempts = [attempt(1, 1, 'delivered'), { ...attempt(1, 1, 'delivered'), deliveryId: 'dlv_1_con_b' }];
  const conB: Array<[number, number, string]> = [
    [1, 4_000, '200'],
    [1, 9_000, '200'],
  ];
  const again = fleetWith('ok', {
    dlv_1_con_a: [
      [1, 2_000, '200'],
      [1, 9_000, '200'],
    ],
    dlv_1_con_b: conB,
  });
  const l = ledger({ events: [twoTargets], fleet: again, attempts, windows });
  expect(l).toMatchObject({ duplicateSends: 2, unexplainedDuplicates: 0, problems: [] });
  expect(l.duplicatesByCause).toEqual({
    killed: 1,
    'handed to the retry queue, then its event fanned out again: killed': 1,
  });
  // con_a's attempt 1 went out once: nothing shows the event was fanned out twice.
  const once = fleetWith('ok', { dlv_1_con_a: [[1, 2_000, '200']], dlv_1_con_b: conB });
  expect(ledger({ events: [twoTargets], fleet: once, attempts, windows }).unexplainedDuplicates).toBe(1);
});
