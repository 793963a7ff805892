/**
 * The billed benchmark's Lambda containers: each a process running the dispatcher bundle
 * (container.ts), held to Lambda's CPU share for the profile's memory by a cgroup of its own
 * (cgroup.ts), as each Lambda container is held on its own. A container takes one invocation
 * at a time, as Lambda's do.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { type CpuCap, createCpuCap, type ThrottleStats } from './cgroup';
import type { ContainerRequest, InvokeReply } from './container';
import type { HandshakeFigures, HandshakeOptions } from './handshakes';

export interface Container {
  readonly index: number;
  readonly cap: CpuCap;
  busy: boolean;
  invoke(
    event: Extract<ContainerRequest, { kind: 'invoke' }>['event'],
    timeoutMs: number,
  ): Promise<InvokeReply>;
  handshakes(options: HandshakeOptions): Promise<HandshakeFigures>;
}

export interface ContainerPool {
  readonly containers: readonly Container[];
  /**
   * A container not running an invocation, taken in turn so that every container gets an even
   * share of the batches (the keep-alive model's assumption; the runner never has more batches
   * in flight than containers).
   */
  idle(): Container;
  /** Throttling the kernel counted, summed over the containers' groups. */
  throttling(): ThrottleStats;
  stop(): Promise<void>;
}

function start(
  index: number,
  bundle: string,
  env: NodeJS.ProcessEnv,
  cap: CpuCap,
): Promise<{ child: ChildProcess; container: Container }> {
  // The log goes nowhere, as fast as Lambda's stdout; stderr's tail is kept for a crash.
  const child = spawn(process.execPath, [bundle], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2_000);
  });
  // Before it is ready (its init is not billed either) and before any invocation.
  try {
    cap.add(child.pid!);
  } catch (error) {
    child.kill('SIGKILL');
    return Promise.reject(error);
  }
  let next = 0;
  const waiting = new Map<number, { resolve: (reply: unknown) => void; reject: (e: Error) => void }>();
  const call = <T>(req: ContainerRequest): Promise<T> =>
    new Promise((resolve, reject) => {
      if (!child.connected) return reject(new Error(`billed container ${index} is gone`));
      waiting.set(req.id, { resolve: resolve as (reply: unknown) => void, reject });
      child.send(req);
    });
  child.on('exit', (code, signal) => {
    for (const w of waiting.values())
      w.reject(new Error(`billed container ${index} exited (code ${code}, signal ${signal}): ${stderr}`));
    waiting.clear();
  });
  return new Promise((resolve, reject) => {
    const early = (code: number | null) =>
      reject(new Error(`billed container ${index} exited (code ${code}): ${stderr}`));
    child.once('exit', early);
    child.on('message', (msg: { ready?: true; id?: number }) => {
      if (msg.ready) {
        child.off('exit', early);
        resolve({
          child,
          container: {
            index,
            cap,
            busy: false,
            invoke: (event, timeoutMs) => call<InvokeReply>({ kind: 'invoke', id: next++, event, timeoutMs }),
            async handshakes(options) {
              const reply = await call<{ figures?: HandshakeFigures; error?: string }>({
                kind: 'handshakes',
                id: next++,
                ...options,
              });
              if (!reply.figures) throw new Error(`handshakes: ${reply.error}`);
              return reply.figures;
            },
          },
        });
        return;
      }
      const done = waiting.get(msg.id!);
      waiting.delete(msg.id!);
      done?.resolve(msg);
    });
  });
}

/** Starts `count` containers, each in its own capped group; throws CpuCapError when a cap cannot be set. */
export async function startContainers(
  count: number,
  memoryMb: number,
  bundle: string,
  env: NodeJS.ProcessEnv,
  cgroupRoot?: string,
): Promise<ContainerPool> {
  const caps: CpuCap[] = [];
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            // Disconnecting lets it exit on its own (a --cpu-prof profile is written then).
            const timer = setTimeout(() => c.kill('SIGKILL'), 3_000);
            c.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            if (c.connected) c.disconnect();
            else c.kill('SIGKILL');
          }),
      ),
    );
    for (const cap of caps) cap.dispose();
  };
  try {
    const containers: Container[] = [];
    let turn = 0;
    for (let i = 0; i < count; i++) {
      const cap = createCpuCap(`webhooks-billed-${process.pid}-${memoryMb}-${i}`, memoryMb, cgroupRoot);
      caps.push(cap);
      const started = await start(i, bundle, env, cap);
      children.push(started.child);
      containers.push(started.container);
    }
    return {
      containers,
      idle() {
        for (let k = 0; k < containers.length; k++) {
          const c = containers[(turn + k) % containers.length]!;
          if (c.busy) continue;
          turn = c.index + 1;
          return c;
        }
        throw new Error('billed: more batches in flight than containers');
      },
      throttling() {
        const all = caps.map((c) => c.stats());
        return {
          periods: all.reduce((s, x) => s + x.periods, 0),
          throttledPeriods: all.reduce((s, x) => s + x.throttledPeriods, 0),
          throttledMs: Math.round(all.reduce((s, x) => s + x.throttledMs, 0)),
        };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
