// Imports one bundle in a fresh process and reports its module init time (cold-start.ts).
import { pathToFileURL } from 'node:url';

const started = performance.now();
const module = await import(pathToFileURL(process.argv[2]).href);
// The dispatcher finishes its wiring asynchronously (the tracing adapter is imported when on).
await module.ready;
const initMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ initMs, rssBytes: process.memoryUsage().rss })}\n`);
// Pipes to the parent are synchronous on Linux: nothing is lost by leaving now.
process.exit(0);
