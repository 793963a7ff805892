/**
 * The dispatch-overhead measurement in a process of its own, run from a bundle built exactly
 * as the Lambda's (bench/index.ts builds it with the construct's esbuild options). Code run
 * through tsx is transformed with `keepNames`, which wraps every closure the delivery path
 * creates per call in a `__name` helper; the deployed bundle has none of that, so the
 * benchmark measures the bundle. Both sides (the delivery path and the bare undici baseline)
 * run from the same bundle, with the same undici.
 *
 *   node <bundle> '<OverheadOptions as JSON>'   → one JSON line: OverheadFigures
 */

import { measureOverhead, type OverheadOptions } from './overhead';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '') as OverheadOptions;
  const figures = await measureOverhead(options);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
