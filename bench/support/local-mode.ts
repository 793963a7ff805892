/**
 * The harness of the measurements that run local mode (end-to-end.ts, api-calls.ts,
 * rate-limit.ts): the emulators (fauxqs, dynalite, local Secrets Manager and KMS) and a
 * receiver process that reports every request (both from the test harness, test/support/), the
 * management API, and the production dispatcher wiring under the Lambda-like runner, its log
 * captured at INFO and counted, not printed.
 */

import type { SecretStore } from '../../lambdas/config';
import type { Clock } from '../../lambdas/core/ports';
import { WebhookManagement } from '../../lambdas/management';
import type { BatchReport } from '../../local/runner';
import { capturedPowertoolsLog } from '../../test/support/captured-log';
import { dispatcherSettings, startDispatcher } from '../../test/support/dispatcher';
import { type LocalAws, startLocalAws, useEnv } from '../../test/support/emulators';
import { testPki } from '../../test/support/pki';
import { startReceiverProcess } from '../../test/support/receivers';
import { sleep } from '../../test/support/wait';

/** A request the receiver got: its path (a connection's), delivery, attempt, user id and arrival time. */
export interface Receipt {
  path: string;
  deliveryId: string;
  attempt: number;
  userId?: string;
  status: number;
  at: number;
}

/** Where the clients reach the emulators and the receiver: directly, or through proxies that count. */
export interface Route {
  env: Record<string, string>;
  endpoints: LocalAws['endpoints'];
  snsEndpoint?: string;
  runnerSqsEndpoint: string;
  resources: LocalAws['resources'] & { secretStore?: SecretStore };
  /** The receiver's port as the dispatcher reaches it. */
  port: number;
  /** Dispatcher settings beyond the defaults, by their environment names. */
  settings?: Record<string, string>;
  close?: () => Promise<void>;
}

export interface LocalModeOptions {
  /** Names the measurement in errors. */
  name: string;
  /** Batches in flight at once: the event source's concurrent pollers. */
  runnerConcurrency: number;
  runnerWarnings?: boolean;
  route?: (aws: LocalAws, receiverPort: number) => Promise<Route>;
  hooks?: { clock?: Clock; onBatch?: (report: BatchReport) => void };
}

export async function startLocalMode(o: LocalModeOptions) {
  const aws = await startLocalAws({ visibilityTimeoutSeconds: 60 });
  const caPem = testPki().caPem;
  const receiver = await startReceiverProcess({ report: true });
  const receipts: Receipt[] = [];
  receiver.onReport((report) => receipts.push(report));
  const route: Route = o.route
    ? await o.route(aws, receiver.port)
    : { ...aws, runnerSqsEndpoint: aws.endpoints.sqs, port: receiver.port };
  const restoreEnv = useEnv(route.env);
  const capture = capturedPowertoolsLog('INFO');
  const management = new WebhookManagement({
    resources: route.resources,
    allowLoopback: true,
    allowedPorts: [route.port],
    ca: [caPem],
  });
  const running = startDispatcher(
    {
      region: aws.region,
      endpoints: route.endpoints,
      ...(route.snsEndpoint ? { snsEndpoint: route.snsEndpoint } : {}),
      runnerSqsEndpoint: route.runnerSqsEndpoint,
      resources: route.resources,
      ca: [caPem],
      allowedPorts: [route.port],
      functionTimeoutMs: 60_000,
      runnerConcurrency: o.runnerConcurrency,
      // The SDK's own default.
      sdkMaxAttempts: 3,
      settings: { ...dispatcherSettings(process.env), ...route.settings },
      ...(o.runnerWarnings ? { runnerWarnings: true } : {}),
    },
    { log: capture.log, ...o.hooks },
  );
  return {
    aws,
    receipts,
    /** The receiver's origin as connections name it. */
    origin: `https://127.0.0.1:${route.port}`,
    management,
    running,
    capture,
    async until(done: () => boolean, timeoutMs: number, what: string) {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline)
          throw new Error(`${o.name}: ${what} did not happen within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    async stop() {
      await running.stop();
      capture.stop();
      restoreEnv();
      await route.close?.();
      await Promise.all([receiver.stop(), aws.stop()]);
    },
  };
}
