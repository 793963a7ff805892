// Imports one bundle in a fresh process and reports its module init time (cold-start.ts).
import { pathToFileURL } from 'node:url';

const started = performance.now();
await import(pathToFileURL(process.argv[2]).href);
const initMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ initMs, rssBytes: process.memoryUsage().rss })}\n`);
// Pipes to the parent are synchronous on Linux: nothing is lost by leaving now.
process.exit(0);
