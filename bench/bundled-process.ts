/**
 * The CPU measurements in a process of their own, run from a bundle built exactly as the
 * Lambda's (bench/index.ts builds it with the construct's esbuild options). Code run through
 * tsx is transformed with `keepNames`, which wraps every closure the delivery path creates per
 * call in a `__name` helper (10-20 µs per delivery of pure artefact); the deployed bundle has
 * none of that, so these measure the bundle. Both sides of each (the dispatcher and its
 * baseline) run from the same bundle.
 *
 *   node <bundle> overhead '<OverheadOptions as JSON>'    → one JSON line: OverheadFigures
 *   node <bundle> coreFloor '<CoreFloorOptions as JSON>'  → one JSON line: CoreFloorFigures
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
