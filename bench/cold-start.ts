/**
 * (4) Cold start: the dispatcher bundled exactly as the construct bundles it (by
 * scripts/bundle-lambdas.mjs with the Lambda options), its size, and its
 * module init time in fresh processes (NODE_OPTIONS as deployed) against the init time of
 * the same AWS SDK clients bundled alone with the same options. Samples alternate; medians.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DISPATCHER_NODE_OPTIONS } from '../lib/webhook-delivery';
import { resolveProps, BATCH_SIZE as STACK_BATCH_SIZE } from '../lib/webhook-delivery-props';
import { BATCH_SIZE, DEFAULT_MEMORY_MB } from './support/constants';
import { median, ratio, round } from './support/stats';

const ROOT = resolve(__dirname, '..');
/** The pack-time bundler of every Lambda (and its options). */
const BUNDLE_SCRIPT = join(ROOT, 'scripts', 'bundle-lambdas.mjs');
const DISPATCHER_ENTRY = join(ROOT, 'lambdas', 'dispatcher', 'index.ts');
const PROBE = join(ROOT, 'bench', 'cold-start', 'probe.mjs');
const SDK_ENTRY = join(ROOT, 'bench', 'cold-start', 'sdk-clients.ts');
/** The tracing adapter, as the metafile names it: the dispatcher imports it only with `tracing` on. */
const TRACING_ADAPTER = 'lambdas/adapters/tracing/xray.ts';

export interface BundleFigures {
  /** What a cold start loads, minified: index.mjs and the chunks it imports statically. */
  bytes: number;
  /** Every file of the bundle, minified: index.mjs and all its chunks, loaded at init or on `import()`. */
  shippedBytes: number;
  gzipBytes: number;
  sourceMapBytes: number;
  /** Every file and map, gzipped: about what Lambda downloads and unpacks at a cold start. */
  assetGzipBytes: number;
  /** Largest contributors to the minified output, bytes. */
  topPackages: Array<{ name: string; bytes: number }>;
  /**
   * What a cold start loads with `tracing` on, minified: the above plus the tracing adapter's chunk
   * and the chunks it imports (docs/design.md §10 "Traces"). Equal to `bytes` for a bundle without
   * tracing.
   */
  tracedBytes: number;
}

export interface ColdStartFigures {
  samples: number;
  nodeOptions: string;
  dispatcher: BundleFigures;
  sdkOnly: BundleFigures;
  /** Median module init, ms, with NODE_OPTIONS as deployed. */
  dispatcherInitMs: number;
  sdkOnlyInitMs: number;
  /** dispatcher ÷ SDK-only init time (as deployed). */
  initRatio: number;
  /** Median init of the dispatcher without NODE_OPTIONS (what source-map support costs). */
  dispatcherInitMsWithoutNodeOptions: number;
  /** Median init, as deployed, with `tracing` on (WEBHOOKS_TRACING=true): the X-Ray chunk loaded too. */
  dispatcherTracedInitMs: number;
}

/** Bundles any entry with the options of the deployed Lambda functions. */
export function bundleLikeLambda(entry: string, outfile: string, options: { metafile?: string } = {}): void {
  const args = [BUNDLE_SCRIPT, '--entry', entry, '--outfile', outfile];
  if (options.metafile) args.push('--metafile', options.metafile);
  execFileSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

interface Output {
  entryPoint?: string;
  bytes: number;
  imports: Array<{ path: string; kind: string; external?: boolean }>;
  inputs: Record<string, { bytesInOutput: number }>;
}

/** The entry's output and every chunk it imports statically: what a cold start loads (paths relative to ROOT). */
function loadedAtInit(outputs: Record<string, Output>, entryOut: string): string[] {
  const seen = new Set<string>();
  const stack = [entryOut];
  while (stack.length > 0) {
    const path = stack.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const i of outputs[path]!.imports) {
      if (i.kind === 'import-statement' && !i.external) stack.push(i.path);
    }
  }
  return [...seen];
}

function bundle(entry: string, dir: string, name: string): BundleFigures & { file: string } {
  const file = join(dir, name, 'index.mjs');
  const meta = join(dir, name, 'meta.json');
  bundleLikeLambda(entry, file, { metafile: meta });
  const metafile = JSON.parse(readFileSync(meta, 'utf8')) as { outputs: Record<string, Output> };
  const outputs = metafile.outputs;
  const code = Object.keys(outputs).filter((p) => p.endsWith('.mjs'));
  // Chunks reached by `import()` are entry points too: the function's own is index.mjs.
  const entryOut = code.find((p) => p.endsWith('/index.mjs') && !p.includes('/chunks/'))!;
  const loaded = loadedAtInit(outputs, entryOut);
  const read = (p: string) => readFileSync(resolve(ROOT, p));
  const byPackage = new Map<string, number>();
  for (const path of loaded) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path]!.inputs)) {
      const pkg =
        input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? input.split('/').slice(0, 2).join('/');
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  const loadedCode = Buffer.concat(loaded.map(read));
  const tracingChunk = code.find((p) => TRACING_ADAPTER in outputs[p]!.inputs && p !== entryOut);
  const traced = tracingChunk
    ? new Set([...loaded, ...loadedAtInit(outputs, tracingChunk)])
    : new Set(loaded);
  return {
    file,
    bytes: loadedCode.length,
    tracedBytes: [...traced].reduce((sum, p) => sum + read(p).length, 0),
    shippedBytes: code.reduce((sum, p) => sum + outputs[p]!.bytes, 0),
    gzipBytes: gzipSync(loadedCode).length,
    sourceMapBytes: code.reduce((sum, p) => sum + read(`${p}.map`).length, 0),
    assetGzipBytes: code.reduce(
      (sum, p) => sum + gzipSync(read(p)).length + gzipSync(read(`${p}.map`)).length,
      0,
    ),
    topPackages: [...byPackage]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([pkg, bytes]) => ({ name: pkg, bytes })),
  };
}

/** What the function's environment holds at init (the construct's env vars; local values). */
const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDBENCHMARK',
  AWS_SECRET_ACCESS_KEY: 'benchmark',
  AWS_LAMBDA_FUNCTION_NAME: 'Webhooks-Dispatcher',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  WEBHOOKS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/Webhooks-Queue',
  WEBHOOKS_RETRY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/Webhooks-RetryQueue',
  WEBHOOKS_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/Webhooks-DeadLetterQueue',
  WEBHOOKS_CONNECTIONS_TABLE: 'Webhooks-ConnectionsTable',
  WEBHOOKS_ATTEMPTS_TABLE: 'Webhooks-AttemptsTable',
  WEBHOOKS_PARKED_TABLE: 'Webhooks-ParkedTable',
  WEBHOOKS_RATE_WINDOWS_TABLE: 'Webhooks-RateWindowsTable',
  WEBHOOKS_EVENTS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:Webhooks-EventsTopic',
  WEBHOOKS_SECRET_PREFIX: 'webhooks/Webhooks/',
  POWERTOOLS_SERVICE_NAME: 'webhook-dispatcher',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

function initMs(
  file: string,
  nodeOptions: string | undefined,
  extraEnv: Record<string, string> = {},
): number {
  const out = execFileSync(process.execPath, [PROBE, file], {
    env: {
      PATH: process.env.PATH,
      ...LAMBDA_ENV,
      ...extraEnv,
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    },
    encoding: 'utf8',
  });
  return (JSON.parse(out.trim().split('\n').at(-1)!) as { initMs: number }).initMs;
}

export function measureColdStart(samples: number): ColdStartFigures {
  if (STACK_BATCH_SIZE !== BATCH_SIZE || resolveProps({}, 'Webhooks').memorySize !== DEFAULT_MEMORY_MB) {
    throw new Error('bench/support/constants.ts no longer matches lib/webhook-delivery-props.ts: update it');
  }
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-bench-bundle-'));
  try {
    const dispatcher = bundle(DISPATCHER_ENTRY, dir, 'dispatcher');
    const sdkOnly = bundle(SDK_ENTRY, dir, 'sdk-only');
    const times = {
      dispatcher: [] as number[],
      sdk: [] as number[],
      bare: [] as number[],
      traced: [] as number[],
    };
    const TRACED = {
      WEBHOOKS_TRACING: 'true',
      _X_AMZN_TRACE_ID: 'Root=1-6925a3c0-0123456789abcdef01234567;Sampled=1',
    };
    initMs(dispatcher.file, DISPATCHER_NODE_OPTIONS); // warms the file cache, not counted
    initMs(sdkOnly.file, DISPATCHER_NODE_OPTIONS);
    for (let i = 0; i < samples; i++) {
      times.dispatcher.push(initMs(dispatcher.file, DISPATCHER_NODE_OPTIONS));
      times.sdk.push(initMs(sdkOnly.file, DISPATCHER_NODE_OPTIONS));
      times.bare.push(initMs(dispatcher.file, undefined));
      times.traced.push(initMs(dispatcher.file, DISPATCHER_NODE_OPTIONS, TRACED));
    }
    const { file: _d, ...dispatcherFigures } = dispatcher;
    const { file: _s, ...sdkFigures } = sdkOnly;
    const dispatcherInitMs = round(median(times.dispatcher));
    const sdkOnlyInitMs = round(median(times.sdk));
    return {
      samples,
      nodeOptions: DISPATCHER_NODE_OPTIONS,
      dispatcher: dispatcherFigures,
      sdkOnly: sdkFigures,
      dispatcherInitMs,
      sdkOnlyInitMs,
      initRatio: ratio(dispatcherInitMs, sdkOnlyInitMs),
      dispatcherInitMsWithoutNodeOptions: round(median(times.bare)),
      dispatcherTracedInitMs: round(median(times.traced)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
