/**
 * The core-floor guard (core-floor.ts) in a process of its own, run from a bundle built as the
 * Lambda's: tsx's `keepNames` wraps every closure in a `__name` helper (10-20 µs per delivery of
 * artefact) that the deployed bundle does not have.
 *
 *   node <bundle> '<CoreFloorOptions as JSON>'  → one JSON line of CoreFloorFigures
 */

import { type CoreFloorOptions, measureCoreFloor } from './core-floor';

measureCoreFloor(JSON.parse(process.argv[2] ?? '') as CoreFloorOptions).then(
  (figures) => process.stdout.write(`${JSON.stringify(figures)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
