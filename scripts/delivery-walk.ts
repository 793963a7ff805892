/**
 * `node --import tsx scripts/delivery-walk.ts [--json] [--warm] [--fake-sender] [--exact]`:
 * the files under lambdas/ that one delivery walks through, in order, measured by stepping
 * the V8 debugger through it.
 *
 * The delivery: one ingress record carrying one `user.identified` event, for an application
 * with one enabled connection, through `createDispatcher` (lambdas/core/dispatch.ts) with the
 * in-memory ports of the dispatcher's tests (test/support/memory/: stores and queues
 * in memory, the real health tracker, EMF metrics) and the real HttpsSender
 * (lambdas/adapters/http/sender.ts) posting to an HTTPS receiver on loopback, in this process,
 * that answers 200 (test/support/receivers.ts). By default it is the process's first delivery
 * (cold: the sender opens its connection, the attempter checks the connection and builds its
 * redaction for the first time); `--warm` traces a second one after an untraced first.
 * `--fake-sender` keeps the in-memory ports' sender (200, nothing sent).
 *
 * The trace: a worker thread attaches to this (the main) thread's V8 inspector
 * (`Session.connectToMainThread`), breaks when `processBatch` is called (a breakpoint on the
 * function object), then answers every pause with `Debugger.stepInto` (V8 follows each `await`
 * into its continuation) until this script calls its end marker, once the batch's result has
 * come back. The top frame's script is recorded at every pause; kept are the files under
 * lambdas/, consecutive repeats collapsed. A re-entry is the walk entering a file it had
 * already left earlier. Not recorded: the module interop tsx adds (reading an imported binding
 * calls a getter in the exporting module, though none of that file's code runs).
 *
 * Two shortcuts keep it fast (about 5 s warm, 20 s cold on 2 idle cores), neither changing the walk:
 * - in a lambdas/ file, the step passes that file's range as `skipList`: V8 steps on inside it
 *   without pausing, and pauses where the code leaves it (a call, a return, an await resumed
 *   elsewhere), which is all the collapsed walk keeps;
 * - Node's own code cannot be skipped (V8 blackboxes only scripts of a context, and Node's
 *   built-ins have none), so where the core called it, the tracer steps out: the core hands
 *   Node no functions (it uses Buffer, URL and node:crypto), so no product code runs inside.
 *   Node's code called from an adapter or run by the event loop is stepped through, since
 *   that is where it calls the product back.
 * `--exact` takes neither shortcut (a minute or more): the same walk, or this script has a bug.
 */

import { once } from 'node:events';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpsSender } from '../lambdas/adapters/http/sender';
import { createDispatcher } from '../lambdas/core/dispatch';
import { connectionFor, HEADER_PREFIX, userIdentified } from '../test/support/fixtures';
import { memoryPorts } from '../test/support/memory';
import { testPki } from '../test/support/pki';
import { respond, startReceiver } from '../test/support/receivers';

const ROOT = resolve(__dirname, '..');
/** Where the main thread leaves the two functions the tracer breaks on. */
const HANDLE = '__deliveryWalk';
/** Pauses after which the tracer gives up. */
const MAX_PAUSES = 200_000;

export interface Walk {
  /** Distinct files under lambdas/, in the order first entered. */
  files: string[];
  /** The files under lambdas/ at each pause, consecutive repeats collapsed. */
  walk: string[];
  distinct: number;
  /** How often the walk enters a file it had left earlier. */
  reentries: number;
}

/** The walk of the files of a sequence of pauses (repository-relative paths; others are dropped). */
export function walkOf(pausedFiles: readonly string[]): Walk {
  const walk: string[] = [];
  for (const file of pausedFiles) {
    if (file.startsWith('lambdas/') && walk.at(-1) !== file) walk.push(file);
  }
  const seen = new Set<string>();
  let reentries = 0;
  for (const file of walk) {
    if (seen.has(file)) reentries++;
    seen.add(file);
  }
  return { files: [...seen], walk, distinct: seen.size, reentries };
}

/**
 * The tracer, run in a worker thread (plain JavaScript, not debugged itself). It posts
 * `{ ready }` once its two breakpoints are set, then `{ pauses, ... }`: the script URL at every
 * recorded pause from processBatch's first statement until the end marker is called.
 */
const TRACER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { Session } = require('node:inspector');
// The inspector's replies do not keep a worker alive; a listening port does, until terminate().
parentPort.on('message', () => {});
const session = new Session();
session.connectToMainThread();
const post = (method, params = {}) =>
  new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
const fail = (error) => parentPort.postMessage({ error: String((error && error.stack) || error) });
const scripts = new Map();
session.on('Debugger.scriptParsed', (m) => scripts.set(m.params.scriptId, m.params));
const urlOf = (frame) => frame.url || scripts.get(frame.location.scriptId)?.url || '';
const isNode = (url) => url.startsWith('node:');

// Where a script's own code starts: tsx compiles each module to CommonJS with esbuild, whose
// preamble (helpers, then one getter per export) ends with module.exports=__toCommonJS(...);
const MARKER = 'module.exports=__toCommonJS(';
const ownCode = new Map();
async function ownCodeStart(scriptId) {
  if (!ownCode.has(scriptId)) {
    const { scriptSource } = await post('Debugger.getScriptSource', { scriptId });
    const at = scriptSource.indexOf(MARKER);
    const lines = scriptSource.slice(0, at < 0 ? 0 : scriptSource.indexOf(';', at) + 1).split('\n');
    ownCode.set(scriptId, { lineNumber: lines.length - 1, columnNumber: lines.at(-1).length });
  }
  return ownCode.get(scriptId);
}

const pauses = [];
const skipped = { interop: 0, node: 0 };
const start = { breakpointId: '', hit: false };
const end = { breakpointId: '', scriptId: '', name: workerData.endName };
let previousScript = '';

async function onPause({ callFrames, hitBreakpoints = [] }) {
  const frame = callFrames[0];
  const { scriptId, lineNumber, columnNumber } = frame.location;
  const url = urlOf(frame);
  if (hitBreakpoints.includes(end.breakpointId) || (scriptId === end.scriptId && frame.functionName === end.name)) {
    await post('Debugger.resume');
    await post('Debugger.disable');
    // Stepping that lost the delivery would reach the marker by its breakpoint, not from its caller.
    parentPort.postMessage({ pauses, skipped, returned: previousScript === end.scriptId });
    return;
  }
  if (!start.hit) {
    start.hit = hitBreakpoints.includes(start.breakpointId);
    if (!start.hit) return post('Debugger.resume');
  }
  previousScript = scriptId;
  let action = 'Debugger.stepInto';
  let params = {};
  if (isNode(url)) {
    skipped.node++;
    const caller = callFrames.map(urlOf).find((u) => !isNode(u));
    if (!workerData.exact && caller && caller.startsWith(workerData.coreUrl)) action = 'Debugger.stepOut';
  } else {
    const own = await ownCodeStart(scriptId);
    if (lineNumber < own.lineNumber || (lineNumber === own.lineNumber && columnNumber < own.columnNumber)) skipped.interop++;
    else {
      pauses.push(url);
      // The next pause that matters is in another file: step on inside V8 while in this one.
      const { endLine, endColumn } = scripts.get(scriptId);
      const whole = { scriptId, start: { lineNumber: 0, columnNumber: 0 }, end: { lineNumber: endLine, columnNumber: endColumn } };
      if (!workerData.exact && url.startsWith(workerData.productUrl)) params = { skipList: [whole] };
    }
  }
  if (pauses.length + skipped.interop + skipped.node > workerData.maxPauses) {
    await post('Debugger.resume');
    throw new Error('more than ' + workerData.maxPauses + ' pauses');
  }
  await post(action, params);
}
session.on('Debugger.paused', (m) => onPause(m.params).catch(fail));

// A main thread left paused would hang this script: give up, resumed, after the time allowed.
setTimeout(() => {
  post('Debugger.disable').finally(() => fail('no end of the delivery after ' + workerData.timeoutMs + ' ms'));
}, workerData.timeoutMs).unref();

(async () => {
  await post('Debugger.enable');
  await post('Debugger.setAsyncCallStackDepth', { maxDepth: 32 });
  await post('Debugger.setBlackboxPatterns', { patterns: ['/node_modules/'] });
  const handle = async (name) =>
    (await post('Runtime.evaluate', { expression: 'globalThis.' + workerData.handle + '.' + name })).result.objectId;
  const startId = await handle('start');
  const endId = await handle('end');
  const { internalProperties } = await post('Runtime.getProperties', { objectId: endId, ownProperties: true });
  end.scriptId = internalProperties.find((p) => p.name === '[[FunctionLocation]]').value.value.scriptId;
  start.breakpointId = (await post('Debugger.setBreakpointOnFunctionCall', { objectId: startId })).breakpointId;
  end.breakpointId = (await post('Debugger.setBreakpointOnFunctionCall', { objectId: endId })).breakpointId;
  parentPort.postMessage({ ready: true });
})().catch(fail);
`;

interface TracerMessage {
  ready?: true;
  pauses?: string[];
  skipped?: { interop: number; node: number };
  returned?: boolean;
  error?: string;
}

export interface WalkOptions {
  /** Trace a second delivery, after an untraced one. */
  warm?: boolean;
  /** The in-memory ports' sender instead of the real HttpsSender over loopback HTTPS. */
  fakeSender?: boolean;
  /** Step through all of Node's code, also where the core called it (slower, same walk). */
  exact?: boolean;
}

export interface Trace {
  /** The repository-relative file of every recorded pause, in order. */
  pauses: string[];
  /** Pauses not recorded: in tsx's module interop, in Node's own code. */
  skipped: { interop: number; node: number };
}

/** A script URL or path as a path relative to the repository (as it was for any other). */
function repositoryPath(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  return path.startsWith('/') ? relative(ROOT, path) : path;
}

/** Runs one delivery under the tracer. */
export async function traceOneDelivery(options: WalkOptions = {}): Promise<Trace> {
  const application = 'app_walk';
  const receiver = options.fakeSender ? undefined : await startReceiver(respond(200));
  const connection = connectionFor(receiver?.url ?? 'https://receiver.example.com/hooks', application);
  const { state, deps } = memoryPorts([connection]);
  state.now = Date.now();
  const egress = { allowLoopback: true, allowedPorts: receiver ? [receiver.port] : [443] };
  const sender = receiver && new HttpsSender({ egress, ca: [testPki().caPem] });
  const dispatcher = createDispatcher(
    { ...deps, ...(sender ? { sender } : {}) },
    { headerPrefix: HEADER_PREFIX, attemptTtlDays: 30, concurrency: 10, egress },
  );
  const invocation = { remainingMs: () => 60_000 };
  const batch = (n: number) => [{ messageId: `m-${n}`, body: JSON.stringify(userIdentified(application)) }];
  const delivered = () => state.records.filter((r) => r.outcome === 'delivered').length;
  function deliveryWalkEnd() {}
  let tracer: Worker | undefined;
  try {
    if (options.warm) await dispatcher.processBatch(batch(0), invocation);
    const before = delivered();
    Object.assign(globalThis, { [HANDLE]: { start: dispatcher.processBatch, end: deliveryWalkEnd } });
    tracer = new Worker(TRACER, {
      eval: true,
      workerData: {
        handle: HANDLE,
        endName: deliveryWalkEnd.name,
        coreUrl: pathToFileURL(`${ROOT}/lambdas/core/`).href,
        productUrl: pathToFileURL(`${ROOT}/lambdas/`).href,
        exact: options.exact === true,
        maxPauses: MAX_PAUSES,
        timeoutMs: options.exact ? 600_000 : 120_000,
      },
    });
    const next = (worker: Worker) => once(worker, 'message').then(([m]) => m as TracerMessage);
    const ready = await next(tracer);
    if (!ready.ready) throw new Error(`tracer: ${ready.error}`);
    const traced = next(tracer);
    const result = await dispatcher.processBatch(batch(1), invocation);
    deliveryWalkEnd();
    const { pauses, skipped, returned, error } = await traced;
    if (!pauses || !skipped) throw new Error(`tracer: ${error}`);
    if (!returned) throw new Error('stepping lost the delivery before its batch result came back');
    if (result.failures.length > 0 || delivered() !== before + 1)
      throw new Error(`the traced delivery was not delivered: ${JSON.stringify(state.records.at(-1))}`);
    if (receiver && receiver.requests.length !== (options.warm ? 2 : 1))
      throw new Error(`the receiver got ${receiver.requests.length} requests`);
    return { pauses: pauses.map(repositoryPath), skipped };
  } finally {
    Reflect.deleteProperty(globalThis, HANDLE);
    await tracer?.terminate();
    await sender?.close();
    await receiver?.close();
  }
}

export function formatWalk(walk: Walk): string {
  return `  ${walk.walk.join('\n  → ')}\n\ndistinct files: ${walk.distinct}\nre-entries:     ${walk.reentries}\n`;
}

async function main() {
  const args = process.argv.slice(2);
  const known = ['--json', '--warm', '--fake-sender', '--exact'];
  const unknown = args.filter((a) => !known.includes(a));
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(' ')} (known: ${known.join(' ')})`);
  const options: WalkOptions = {
    warm: args.includes('--warm'),
    fakeSender: args.includes('--fake-sender'),
    exact: args.includes('--exact'),
  };
  const trace = await traceOneDelivery(options);
  const walk = walkOf(trace.pauses);
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(walk, null, 2)}\n`);
    return;
  }
  const sender = options.fakeSender ? 'in-memory sender' : 'HttpsSender to a loopback HTTPS receiver';
  process.stdout.write(
    `One delivery, ${options.warm ? 'warm' : 'cold'}, ${sender}: ${trace.pauses.length} pauses recorded ` +
      `(${trace.skipped.interop} in module interop and ${trace.skipped.node} in Node's code not)\n\n` +
      formatWalk(walk),
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
