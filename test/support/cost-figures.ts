/**
 * Bench figures for the cost model's unit tests: one delivery kind's counts (a healthy delivery
 * unless overridden), and the figures of a run whose failing and hanging deliveries look alike.
 * Shaped as bench/cost-model.ts's `KindFigures` and `Figures`, and typed where they are used:
 * nothing under test/support imports from bench/ (test/unit/bench-imports.test.ts).
 */

export const kindFigures = <T extends object>(over: T) => ({
  messages: 1,
  attempts: 1,
  sqsSends: 0,
  dynamoWrites: 1,
  writeUnits: 1,
  readUnits: 0,
  secretCalls: 0,
  itemBytes: 412,
  items: 1,
  indexBytes: 0,
  indexItems: 0,
  wireBytesPerAttempt: 1000,
  logBytes: 0,
  logBytesAtDebug: 400,
  ...over,
});

/** 1,000 µs of CPU per delivery, one request per event (0.1 batched), one receive and delete per batch. */
export const figuresWith = <K>(failing: K) => ({
  cpuMicrosPerDelivery: 1_000,
  kinds: { healthy: kindFigures({}), failing, hanging: failing },
  publishRequests: { single: 1, batched: 0.1 },
  receivesPerBatch: 1,
  deletesPerBatch: 1,
  largestMessageBytes: 1_000,
});
