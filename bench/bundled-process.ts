/**
 * The CPU measurements (overhead, coreFloor) in a process of their own, run from a bundle built
 * as the Lambda's: tsx's `keepNames` wraps every closure in a `__name` helper (10-20 µs per
 * delivery of artefact) that the deployed bundle does not have.
 *
 *   node <bundle> overhead|coreFloor '<options as JSON>'  → one JSON line of figures
 */

import { measureCoreFloor } from './core-floor';
import { measureOverhead } from './overhead';

const MEASURES = { overhead: measureOverhead, coreFloor: measureCoreFloor } as const;

async function main(): Promise<void> {
  const name = process.argv[2] as keyof typeof MEASURES;
  const measure = MEASURES[name];
  if (!measure)
    throw new Error(`unknown measurement ${JSON.stringify(name)}: ${Object.keys(MEASURES).join(', ')}`);
  // biome-ignore lint/suspicious/noExplicitAny: each measurement reads its own options
  const figures = await measure(JSON.parse(process.argv[3] ?? '') as any);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
