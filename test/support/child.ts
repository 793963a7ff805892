/**
 * The one way tests and benchmarks run a helper process (the emulator host, the dispatcher
 * under test, the benchmark's receiver): spawned with the project's Node and tsx, each prints
 * one JSON "ready" line on stdout and exits when its stdin pipe closes, so a harness that dies
 * never leaves one behind.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { resolve } from 'node:path';

/** The repository root (this file is test/support/child.ts). */
export const ROOT_DIR = resolve(__dirname, '..', '..');
const STDERR_KEPT = 16_384;

export interface ReadyChild<T> {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: T;
  /** The last lines the child wrote to stderr. */
  stderr(): string;
  /** Lines after the ready line, as they arrive. */
  onLine(listener: (line: string) => void): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once; resolves once the child has exited. */
  kill(): Promise<void>;
}

/** A child as {@link launch} spawned it: what both ways of waiting for it to be ready share. */
interface Launched {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stderr: () => string;
  readonly exited: Promise<void>;
  readonly signal: (sig: NodeJS.Signals, graceMs: number) => Promise<void>;
}

/** Spawns `node --import tsx <script> ...args` from the repository root, stdio piped. */
function launch(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; echoStderr?: boolean },
): Launched {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT_DIR,
    stdio: 'pipe',
    env: options.env ?? process.env,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
    if (options.echoStderr) process.stderr.write(chunk);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const signal = async (sig: NodeJS.Signals, graceMs: number) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill(sig);
    child.stdin.end();
    await exited;
    clearTimeout(timer);
  };
  return { child, stderr: () => stderr, exited, signal };
}

/** Spawns `node --import tsx <script> ...args` and resolves with its parsed ready line. */
export function spawnReady<T>(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; echoStderr?: boolean } = {},
): Promise<ReadyChild<T>> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const { child, stderr, signal } = launch(script, args, options);
  const listeners: Array<(line: string) => void> = [];
  const describe = (problem: string) =>
    new Error(`${script} ${problem}.\n--- child stderr ---\n${stderr().trim() || '(empty)'}`);

  return new Promise((resolvePromise, reject) => {
    let buffer = '';
    let ready: T | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(describe(`was not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      if (ready === undefined) reject(describe(`exited before it was ready (code ${code}, signal ${sig})`));
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (ready !== undefined) {
          for (const listener of listeners) listener(line);
          continue;
        }
        clearTimeout(timer);
        try {
          const parsed = JSON.parse(line) as T & { ready?: unknown };
          if (parsed.ready !== true) throw new Error('no "ready": true');
          ready = parsed;
        } catch (error) {
          child.kill('SIGKILL');
          reject(
            describe(`printed an unexpected first line (${(error as Error).message}): ${line.slice(0, 300)}`),
          );
          return;
        }
        resolvePromise({
          child,
          ready,
          stderr,
          onLine: (listener) => listeners.push(listener),
          stop: (graceMs = 10_000) => signal('SIGTERM', graceMs),
          kill: () => signal('SIGKILL', 0),
        });
      }
    });
  });
}

/** A program that prints no ready line (local mode's `npm start`), as {@link spawnUntil} started it. */
export interface OutputChild {
  readonly child: ChildProcessWithoutNullStreams;
  /** All it wrote to stdout and stderr so far, interleaved as it arrived. */
  output(): string;
  /** Its exit code (null when a signal ended it), once it has exited. */
  readonly exitCode: Promise<number | null>;
}

/**
 * Spawns `node --import tsx <script> ...args` like {@link spawnReady}, for a program that says
 * it is ready in words: resolves once `ready(output)` holds (checked every 100 ms); rejects with
 * the output if the child exits first or `timeoutMs` passes (then it is killed).
 */
export function spawnUntil(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; ready: (output: string) => boolean },
): Promise<OutputChild> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const { child } = launch(script, args, options);
  let output = '';
  const append = (chunk: string) => {
    output += chunk;
  };
  child.stdout.setEncoding('utf8').on('data', append);
  child.stderr.on('data', append);
  const exitCode = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const started: OutputChild = { child, output: () => output, exitCode };
  return new Promise((resolvePromise, reject) => {
    const deadline = Date.now() + timeoutMs;
    const check = () => {
      const problem =
        child.exitCode !== null || child.signalCode !== null
          ? `exited before it was ready (code ${child.exitCode}, signal ${child.signalCode})`
          : Date.now() > deadline
            ? `was not ready after ${timeoutMs} ms`
            : undefined;
      if (problem) {
        clearInterval(timer);
        child.kill('SIGKILL');
        reject(new Error(`${script} ${problem}.\n--- child output ---\n${output.trim() || '(empty)'}`));
      } else if (options.ready(output)) {
        clearInterval(timer);
        resolvePromise(started);
      }
    };
    const timer = setInterval(check, 100);
  });
}

/**
 * In the child: calls `shutdown` on SIGINT, SIGTERM, or when stdin (a pipe from the parent)
 * closes. Only a pipe tells us the parent is gone; /dev/null or a TTY would not.
 */
export function exitWithParent(shutdown: (why: string) => void): void {
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  let pipe = false;
  try {
    const stat = fstatSync(0);
    pipe = stat.isFIFO() || stat.isSocket();
  } catch {
    pipe = false;
  }
  if (pipe) {
    process.stdin.on('end', () => shutdown('stdin closed'));
    process.stdin.on('error', () => shutdown('stdin error'));
    process.stdin.resume();
  }
}
