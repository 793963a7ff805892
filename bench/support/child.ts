/** Child processes of the benchmark: started with tsx, first stdout line is JSON, gone with us. */

import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';

export interface Child<T> {
  /** The first stdout line, parsed. */
  ready: T;
  /** Later stdout lines, as they come. */
  lines: Interface;
  stop(): Promise<void>;
}

/** Starts `node --import tsx <script>` and waits (at most `timeoutMs`) for its first stdout line. */
export async function startChild<T>(
  script: string,
  options: { args?: string[]; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<Child<T>> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, ...(options.args ?? [])], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} did not start within ${options.timeoutMs ?? 30_000} ms`)),
      options.timeoutMs ?? 30_000,
    );
    child.once('exit', (code) => reject(new Error(`${script} exited with code ${code} before it was ready`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as T);
    });
  });
  return {
    ready,
    lines,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // Closing stdin asks politely; the kill is the fallback if it does not listen.
        child.stdin!.end();
        setTimeout(() => child.kill('SIGTERM'), 3_000).unref();
      }),
  };
}
