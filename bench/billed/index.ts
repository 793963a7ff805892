/**
 * (11) What Lambda bills under its CPU share (issue 26, docs/performance.md §11): the deployed
 * dispatcher bundle in containers held to memory ÷ 1,769 MB of a core by a cgroup quota, against
 * a population of HTTPS origins, with local mode's event source and emulators, for the defaults
 * and the lean profile, beside the cost model's figures. No figure when the cap cannot be set.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testPki } from '../../test/support/pki';
import { bundleLikeLambda } from '../cold-start';
import { ASSUMPTIONS, figuresFrom, loadResults } from '../cost-inputs';
import {
  DEFAULT_LATENCY,
  forProfile,
  lambdaUsage,
  MB_PER_VCPU,
  MILLION,
  newConnectionShare,
  SQS_EVENT_SOURCE_POLLERS,
} from '../cost-model';
import { round } from '../support/stats';
import { batchTimeRatios, gbSecondsPerMillion, RECEIVER_KEEP_ALIVE, senderIdleS } from './arithmetic';
import { CpuCapError, createCpuCap } from './cgroup';
import type { BilledFigures, BilledProfileFigures } from './figures';
import { meanPhases } from './phases';
import { startPopulation } from './population';
import { type BilledProfile, billedProfile, type ProfileName } from './profiles';
import { type RunResult, runProfile } from './run';

export type { BilledFigures } from './figures';

export interface BilledOptions {
  origins: number;
  eventsPerSecond: number;
  warmupS: number;
  measureS: number;
  /** Origins the handshake levers connect to. */
  handshakeOrigins: number;
  cgroupRoot?: string;
  /** The profiles to run (both unless given): a lever's run may measure one. */
  only?: ProfileName[];
  /** A memory size instead of the profile's, MB: what the share of a core buys (the memory lever). */
  memoryMb?: Partial<Record<ProfileName, number>>;
}

const SEED = 26;

/**
 * The cost model's GB-seconds for the same traffic, memory, batch and window, with its own CPU
 * figure for the profile (the committed baseline's).
 */
function model(profile: BilledProfile, o: BilledOptions) {
  const { results } = loadResults();
  const a = {
    ...ASSUMPTIONS,
    memoryMb: profile.memoryMb,
    batchSize: profile.batchSize,
    batchingWindowS: profile.batchingWindowMs / 1000,
    eventsPerSecond: o.eventsPerSecond,
    connections: o.origins,
  };
  const figures = forProfile(figuresFrom(results), profile.name);
  const healthy = { healthy: 1, failing: 0, hanging: 0 };
  return {
    gbSecondsPerMillion: lambdaUsage(healthy, MILLION, figures, a).gbSeconds,
    cpuMicrosPerDelivery: figures.cpuMicrosPerDelivery,
  };
}

function figures(
  profile: BilledProfile,
  run: RunResult,
  o: BilledOptions,
  containers: number,
  keepAliveS: readonly number[],
  quotaShare: number,
): BilledProfileFigures {
  const deliveries = run.batches.reduce((s, b) => s + b.records, 0);
  const ratios = batchTimeRatios(run.batches);
  const measured = gbSecondsPerMillion(
    run.batches.map((b) => b.wallMs),
    profile.memoryMb,
    deliveries,
  );
  const cpuMicrosPerDelivery = Math.round(run.batches.reduce((s, b) => s + b.cpuMicros, 0) / deliveries);
  const m = model(profile, o);
  const idle = keepAliveS.map((s) => ({ seconds: senderIdleS(s), share: 1 }));
  const [served, meanFill] = [deliveries / run.servedS, deliveries / run.batches.length];
  const phases = meanPhases(run.batches.flatMap((b) => (b.phases ? [b.phases] : [])));
  // Healthy traffic sends no SQS message: one is an attempt record whose write failed over to SQS.
  const sqs = Object.keys(phases?.calls ?? {}).filter((op) => op.startsWith('SendMessage'));
  if (sqs.length > 0) throw new Error(`billed ${profile.name}: ${sqs.join(', ')} in healthy traffic`);
  return {
    memoryMb: profile.memoryMb,
    cpuShare: round(quotaShare),
    batchSize: profile.batchSize,
    batchingWindowMs: profile.batchingWindowMs,
    containers,
    batches: run.batches.length,
    deliveries,
    meanFill: round(meanFill),
    batchTimeRatio: ratios.ratio,
    batchTimeRatioMedian: ratios.median,
    batchTimeRatioP90: ratios.p90,
    gbSecondsPerMillion: round(measured),
    modelGbSecondsPerMillion: round(m.gbSecondsPerMillion),
    modelRatio: round(measured / m.gbSecondsPerMillion, 3),
    modelCpuMicrosPerDelivery: m.cpuMicrosPerDelivery,
    cpuMicrosPerDelivery,
    newConnectionShare: round(run.receivers.handshakes / Math.max(1, run.receivers.requests), 3),
    servedPerSecond: round(served),
    modelNewConnectionShare: round(
      newConnectionShare({ deliveriesPerSecond: served, connections: o.origins, containers, meanFill }, idle),
      3,
    ),
    resumedShare: round(run.receivers.resumed / Math.max(1, run.receivers.handshakes), 3),
    throttling: run.throttling,
    failedBatches: run.failedBatches,
    phases,
  };
}

export async function measureBilled(o: BilledOptions): Promise<BilledFigures> {
  // The cap first: without it, nothing is measured.
  const sized = (name: ProfileName): BilledProfile => {
    const p = billedProfile(name);
    return { ...p, memoryMb: o.memoryMb?.[name] ?? p.memoryMb };
  };
  const defaults = sized('defaults');
  const lean = sized('lean');
  try {
    createCpuCap(`webhooks-billed-probe-${process.pid}`, defaults.memoryMb, o.cgroupRoot).dispose();
  } catch (error) {
    if (error instanceof CpuCapError) return { refused: error.message };
    throw error;
  }
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-bench-billed-'));
  const bundle = join(dir, 'bundled', 'index.mjs');
  const pki = testPki();
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pki.caPem);
  bundleLikeLambda(join(__dirname, 'container.ts'), bundle);
  const population = await startPopulation(o.origins, 2, SEED);
  const containers = SQS_EVENT_SOURCE_POLLERS;
  try {
    let handshakes: BilledFigures['handshakes'];
    const run = (profile: BilledProfile, seed: number) =>
      runProfile({
        profile,
        population,
        caFile,
        caPem: pki.caPem,
        bundle,
        containers,
        eventsPerSecond: o.eventsPerSecond,
        warmupS: o.warmupS,
        measureS: o.measureS,
        seed,
        cgroupRoot: o.cgroupRoot,
        beforeStop:
          profile === defaults
            ? async (pool) => {
                const figures = await pool.containers[0]!.handshakes({
                  ports: population.ports.slice(0, o.handshakeOrigins),
                  rounds: 2,
                  concurrency: 10,
                });
                handshakes = { ...figures, memoryMb: profile.memoryMb };
              }
            : undefined,
      });
    const of = (p: BilledProfile, r: RunResult) =>
      figures(p, r, o, containers, population.keepAliveS, Math.min(1, p.memoryMb / MB_PER_VCPU));
    const traffic = { eventsPerSecond: o.eventsPerSecond, origins: o.origins, measureS: o.measureS };
    const runs: ProfileName[] = o.only ?? ['defaults', 'lean'];
    const d = runs.includes('defaults') ? await run(defaults, SEED) : undefined;
    const l = runs.includes('lean') ? await run(lean, SEED + 1) : undefined;
    // One profile only (a lever's run): its figures, printed by the standalone entry below.
    if (!d || !l) return { traffic, partial: d ? of(defaults, d) : of(lean, l!) };
    return {
      traffic,
      latency: { medianMs: DEFAULT_LATENCY.medianMs, p99Ms: DEFAULT_LATENCY.p99Ms },
      keepAlive: RECEIVER_KEEP_ALIVE,
      profiles: { defaults: of(defaults, d), lean: of(lean, l) },
      handshakes,
    };
  } finally {
    await population.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  // `node --import tsx bench/billed/index.ts ['<BilledOptions as JSON>']`: one run, figures on stdout.
  const given = JSON.parse(process.argv[2] ?? '{}') as Partial<BilledOptions>;
  const defaults = { origins: 200, eventsPerSecond: 100, warmupS: 20, measureS: 30, handshakeOrigins: 100 };
  measureBilled({ ...defaults, ...given })
    .then((f) => console.log(JSON.stringify(f, null, 2)))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
