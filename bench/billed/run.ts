/**
 * One profile of the billed benchmark (docs/performance.md §11): emulators with the profile's
 * secret store, one connection per receiver origin, the capped containers, local mode's event
 * source (local/runner.ts) with the profile's batch size and window, and events published at
 * the stated rate to origins drawn uniformly, each with a receiver latency drawn from the
 * documented distribution. Batches of the warm-up are not counted.
 *
 * BILLED_NODE_OPTIONS adds to the containers' NODE_OPTIONS, e.g. `--cpu-prof --cpu-prof-dir=DIR`
 * for a CPU profile of each container (written when it exits).
 */

import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { ENV } from '../../lambdas/config';
import { queueJson } from '../../lambdas/core/untrusted';
import { WebhookManagement } from '../../lambdas/management';
import { build } from '../../lambdas/publisher/send';
import { DISPATCHER_NODE_OPTIONS } from '../../lib/webhook-delivery';
import { localClientConfig, localQueueUrl } from '../../local/bootstrap';
import { startRunner, toRecord } from '../../local/runner';
import { startLocalAws, useEnv } from '../../test/support/emulators';
import { user } from '../../test/support/fixtures';
import { seeded } from '../batch-time';
import { DEFAULT_LATENCY, latencyQuantile } from '../cost-model';
import { ATTEMPT_TIMEOUT_MS } from '../support/constants';
import type { ThrottleStats } from './cgroup';
import { type ContainerPool, startContainers } from './containers';
import { type BatchPhases, phasesOf } from './phases';
import type { ReceiverPopulation } from './population';
import type { BilledProfile } from './profiles';

export interface RunOptions {
  profile: BilledProfile;
  population: ReceiverPopulation;
  caFile: string;
  caPem: string;
  bundle: string;
  containers: number;
  eventsPerSecond: number;
  warmupS: number;
  measureS: number;
  seed: number;
  cgroupRoot?: string;
  /** Called with the pool before it stops (the handshake levers run in one of its containers). */
  beforeStop?: (pool: ContainerPool) => Promise<void>;
}

export interface MeasuredBatch {
  records: number;
  wallMs: number;
  cpuMicros: number;
  slowestMs: number;
  /** Where its time went (phases.ts); absent when no receiver answered. */
  phases?: BatchPhases | undefined;
}

export interface RunResult {
  batches: MeasuredBatch[];
  published: number;
  throttling: ThrottleStats;
  receivers: { handshakes: number; resumed: number; requests: number };
  failedBatches: number;
  /** From the first counted batch's start to the last one's end: the rate the containers served. */
  servedS: number;
}

const DELAY = /usr_b_\d+_(\d+)/;
/** The stack's function timeout: the attempt deadline and its margin (lib/webhook-delivery-props.ts). */
const FUNCTION_TIMEOUT_MS = ATTEMPT_TIMEOUT_MS + 10_000;

/**
 * Each container first delivers one event to every connection (uncounted; the receivers answer
 * at once), so it holds each signing secret and a TLS session per origin, as a container does
 * after its first minutes: the model prices secret reads per container lifetime, not per delivery.
 */
async function primeSecretCaches(
  pool: ContainerPool,
  apps: ReadonlyArray<{ id: string; name: string }>,
  batchSize: number,
  queueArn: string,
  region: string,
): Promise<void> {
  await Promise.all(
    pool.containers.map(async (container) => {
      const records = apps.map((a, i) =>
        toRecord(
          {
            MessageId: `prime-${container.index}-${i}`,
            Body: queueJson(build({ user: user(`usr_prime_${i}`), application: { id: a.id, name: a.name } })),
          },
          queueArn,
          region,
        ),
      );
      container.busy = true;
      try {
        for (let i = 0; i < records.length; i += batchSize) {
          const reply = await container.invoke(
            { Records: records.slice(i, i + batchSize) },
            FUNCTION_TIMEOUT_MS,
          );
          const failed = reply.error ?? reply.response?.batchItemFailures.length;
          if (failed) throw new Error(`billed: priming container ${container.index} failed: ${failed}`);
        }
      } finally {
        container.busy = false;
      }
    }),
  );
}

/** Each count of `after` less the same count of `before`. */
function minus<T extends object>(after: T, before: T): T {
  const b = before as Record<string, number>;
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, (v as number) - b[k]!])) as T;
}

export async function runProfile(o: RunOptions): Promise<RunResult> {
  const { profile, population } = o;
  const emulators = await startLocalAws({ visibilityTimeoutSeconds: 120, secretStore: profile.secretStore });
  const restoreEnv = useEnv(emulators.env);
  const { resources } = emulators;
  const management = new WebhookManagement({
    resources,
    allowLoopback: true,
    allowedPorts: population.ports,
    ca: [o.caPem],
  });
  let pool: ContainerPool | undefined;
  let runner: ReturnType<typeof startRunner> | undefined;
  const runnerSqs = new SQSClient(localClientConfig(emulators.endpoints.sqs, emulators.region));
  try {
    const apps = population.ports.map((port, i) => ({ id: `app_b_${i}`, name: `Billed ${i}`, port }));
    for (let i = 0; i < apps.length; i += 25) {
      await Promise.all(
        apps.slice(i, i + 25).map((a) =>
          management.connections.create({
            applicationId: a.id,
            name: 'billed',
            url: `https://127.0.0.1:${a.port}/hook`,
          }),
        ),
      );
    }
    pool = await startContainers(
      o.containers,
      profile.memoryMb,
      o.bundle,
      {
        PATH: process.env.PATH,
        ...emulators.env,
        ...profile.settings,
        [ENV.allowLoopback]: 'true',
        [ENV.allowedPorts]: population.ports.join(','),
        NODE_EXTRA_CA_CERTS: o.caFile,
        NODE_OPTIONS: `${DISPATCHER_NODE_OPTIONS} ${process.env.BILLED_NODE_OPTIONS ?? ''}`,
        // Not AWS_LAMBDA_FUNCTION_NAME: the dispatcher refuses the loopback flag inside Lambda.
        POWERTOOLS_SERVICE_NAME: 'webhook-dispatcher',
        POWERTOOLS_LOG_LEVEL: 'INFO',
      },
      o.cgroupRoot,
    );
    const containers = pool;
    await primeSecretCaches(containers, apps, profile.batchSize, resources.queueArn, emulators.region);
    let measuring = false;
    let failedBatches = 0;
    const batches: MeasuredBatch[] = [];
    const served = { from: Number.POSITIVE_INFINITY, to: 0 };
    runner = startRunner({
      sqs: runnerSqs,
      queueUrl: localQueueUrl(emulators.endpoints.sqs, resources.queueUrl),
      queueArn: resources.queueArn,
      batchSize: profile.batchSize,
      maxBatchingWindowMs: profile.batchingWindowMs,
      waitTimeSeconds: 1,
      concurrency: o.containers,
      functionTimeoutMs: FUNCTION_TIMEOUT_MS,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      handler: async (event: SQSEvent) => {
        const counted = measuring;
        const slowestMs = Math.max(...event.Records.map((r) => Number(DELAY.exec(r.body)?.[1] ?? 0)));
        const container = containers.idle();
        container.busy = true;
        const startedAt = Date.now();
        try {
          const reply = await container.invoke(event, FUNCTION_TIMEOUT_MS);
          if (reply.error || (reply.response?.batchItemFailures.length ?? 0) > 0) failedBatches++;
          if (reply.error) throw new Error(reply.error);
          if (counted) {
            served.from = Math.min(served.from, startedAt);
            served.to = Date.now();
            batches.push({
              records: event.Records.length,
              wallMs: reply.durationMs,
              cpuMicros: reply.cpuMicros,
              slowestMs,
              phases: phasesOf(reply.spans ?? [], reply.durationMs, slowestMs),
            });
          }
          return reply.response;
        } finally {
          container.busy = false;
        }
      },
    });

    const random = seeded(o.seed);
    let published = 0;
    const publishFor = async (seconds: number) => {
      const started = Date.now();
      let sent = 0;
      const inFlight: Promise<unknown>[] = [];
      while (Date.now() - started < seconds * 1000) {
        const due = Math.floor(((Date.now() - started) / 1000) * o.eventsPerSecond) - sent;
        for (let k = 0; k < due; k++) {
          const app = apps[Math.floor(random() * apps.length)]!;
          const delay = Math.round(latencyQuantile(DEFAULT_LATENCY, Math.min(0.999_999, random())));
          const application = { id: app.id, name: app.name };
          const id = `usr_b_${published + sent + k}_${delay}`;
          inFlight.push(management.publisher.publishUserIdentified({ user: user(id), application }));
        }
        sent += due;
        await new Promise((r) => setTimeout(r, 20));
      }
      await Promise.all(inFlight);
      published += sent;
      return sent;
    };

    await publishFor(o.warmupS);
    // Batches already running finish uncounted; what the warm-up left on the queue is counted.
    measuring = true;
    const before = population.stats();
    const throttleBefore = pool.throttling();
    const measuredPublished = await publishFor(o.measureS);
    const deadline = Date.now() + 60_000;
    const delivered = () => batches.reduce((s, b) => s + b.records, 0);
    while (delivered() < measuredPublished * 0.98 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    await runner.stop();
    runner = undefined;
    // The receivers report once a second.
    await new Promise((r) => setTimeout(r, 1_200));
    const after = population.stats();
    const throttleAfter = pool.throttling();
    await o.beforeStop?.(pool);
    return {
      batches,
      published: measuredPublished,
      failedBatches,
      servedS: (served.to - served.from) / 1000,
      throttling: minus(throttleAfter, throttleBefore),
      receivers: minus(after, before),
    };
  } finally {
    await runner?.stop();
    await pool?.stop();
    runnerSqs.destroy();
    restoreEnv();
    await emulators.stop();
  }
}
