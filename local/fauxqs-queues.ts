/**
 * What local mode's queues hold, read from fauxqs' inspection endpoint: depths by state and the
 * oldest message's age, which SQS's own API does not give. Local `/metrics` (prometheus.ts) and
 * `webhooks --local stats` read them here.
 */

import type { OldestAges } from '../lambdas/management/stats-port';
import type { WebhookResources } from '../lambdas/management/types';

/** What one queue holds, as the emulator tells it. */
export interface QueueReading {
  queue: string;
  visible: number;
  delayed: number;
  inFlight: number;
  /** Age of the oldest message in seconds; 0 when the queue is empty. */
  oldestAgeSeconds: number;
}

interface InspectedMessage {
  sentTimestamp?: number;
}

/**
 * Reads the queues from fauxqs' inspection endpoint (`GET /_fauxqs/queues/<name>`), which sees
 * every message (visible, delayed, in flight) without receiving it: a scrape changes nothing.
 */
export function fauxqsQueueReader(
  sqsEndpoint: string,
  queues: Record<string, string>,
  now: () => number = Date.now,
): () => Promise<QueueReading[]> {
  return () =>
    Promise.all(
      Object.entries(queues).map(async ([queue, url]) => {
        const name = new URL(url).pathname.split('/').pop()!;
        const res = await fetch(new URL(`/_fauxqs/queues/${encodeURIComponent(name)}`, sqsEndpoint));
        if (!res.ok) throw new Error(`fauxqs inspection of ${name} answered ${res.status}`);
        const inspected = (await res.json()) as {
          messages: {
            ready: InspectedMessage[];
            delayed: InspectedMessage[];
            inflight: { message: InspectedMessage }[];
          };
        };
        const { ready, delayed, inflight } = inspected.messages;
        const sent = [...ready, ...delayed, ...inflight.map((i) => i.message)]
          .map((m) => m.sentTimestamp)
          .filter((t): t is number => typeof t === 'number');
        return {
          queue,
          visible: ready.length,
          delayed: delayed.length,
          inFlight: inflight.length,
          oldestAgeSeconds: sent.length ? Math.max(0, (now() - Math.min(...sent)) / 1000) : 0,
        };
      }),
    );
}

/** The oldest message's age on each of the stack's three queues, for `webhooks --local stats`. */
export function fauxqsOldestAges(
  sqsEndpoint: string,
  resources: Pick<WebhookResources, 'queueUrl' | 'retryQueueUrl' | 'dlqUrl'>,
  now: () => number = Date.now,
): OldestAges {
  const read = fauxqsQueueReader(
    sqsEndpoint,
    { ingress: resources.queueUrl, retry: resources.retryQueueUrl, deadLetter: resources.dlqUrl },
    now,
  );
  return async () => {
    const ages = Object.fromEntries((await read()).map((q) => [q.queue, q.oldestAgeSeconds]));
    return { ingress: ages.ingress ?? null, retry: ages.retry ?? null, deadLetter: ages.deadLetter ?? null };
  };
}
