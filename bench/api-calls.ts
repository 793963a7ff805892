/**
 * (7) API calls and wire bytes per delivery, counted: local mode's clients reach the emulators
 * through counting proxies (each request classified by service, action, table or queue and
 * message type) and the receiver through a TCP proxy counting bytes. After a warm-up (caches
 * filled, as a warm Lambda): healthy (one event per SendMessage), healthyBatched (ten per
 * SendMessageBatch), failing (503 to all 4 attempts). `apiCallsKms` runs it with the kms store.
 */

import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net';
import { ENV, type SecretStore } from '../lambdas/config';
import { localKeyArn } from '../local/kms-store';
import { type LocalAws, servicesFromEnv } from '../test/support/emulators';
import { user } from '../test/support/fixtures';
import { sleep } from '../test/support/wait';
import { type Route, startLocalMode } from './support/local-mode';

export type Phase = 'healthy' | 'healthyBatched' | 'failing';

export interface PhaseCounts {
  deliveries: number;
  /** Requests the receiver got (attempts). */
  attempts: number;
  /** Requests by `service:Action:target[:messageType]`, e.g. `sqs:SendMessage:queue:delivery`. */
  calls: Record<string, number>;
  /** ReceiveMessage calls that returned messages, and the messages they returned. */
  receivesWithMessages: number;
  messagesReceived: number;
  /** Long polls that returned nothing: idle polling, not per delivery. */
  emptyReceives: number;
  /** Bytes sent to the receiver (requests, TLS records included) and received from it. */
  wireBytesOut: number;
  wireBytesIn: number;
}

export interface ApiCallFigures {
  /** When this measurement ran (it may be merged into a baseline of another run). */
  measuredAt: string;
  phases: Record<Phase, PhaseCounts>;
  /** Calls made while creating connections and warming caches (not per delivery). */
  warmUp: Record<string, number>;
  /** The secret store of this run (absent in figures that predate the option: Secrets Manager). */
  secretStore?: 'secrets-manager' | 'kms';
  /** Connections created in the warm-up (each has one secret). */
  connections?: number;
}

interface Counter {
  calls: Map<string, number>;
  receivesWithMessages: number;
  messagesReceived: number;
  emptyReceives: number;
}

const newCounter = (): Counter => ({
  calls: new Map(),
  receivesWithMessages: 0,
  messagesReceived: 0,
  emptyReceives: 0,
});

const lastSegment = (value: unknown) =>
  typeof value === 'string' ? (value.split(/[/:]/).at(-1) ?? value) : 'unknown';

function messageType(body: unknown): string {
  try {
    const type = (JSON.parse(String(body)) as { type?: unknown }).type;
    return typeof type === 'string' ? type : 'other';
  } catch {
    return 'unparsed';
  }
}

/** `service:Action:target[:type]` of one AWS JSON-protocol request. */
function classify(service: string, target: string, body: string, names: Map<string, string>): string {
  // JSON protocols name the action in X-Amz-Target; SNS's Query protocol in the form body.
  const action = target
    ? (target.split('.').at(-1) ?? 'unknown')
    : (new URLSearchParams(body).get('Action') ?? 'unknown');
  let input: Record<string, unknown> = {};
  try {
    input = JSON.parse(body) as Record<string, unknown>;
  } catch {
    // not JSON: counted by action alone
  }
  const name = (raw: unknown) => names.get(lastSegment(raw)) ?? lastSegment(raw);
  if (service === 'sqs') {
    const queue = name(input.QueueUrl);
    if (action === 'SendMessage') return `sqs:${action}:${queue}:${messageType(input.MessageBody)}`;
    if (action === 'SendMessageBatch') {
      const first = (input.Entries as Array<{ MessageBody?: string }> | undefined)?.[0];
      return `sqs:${action}:${queue}:${messageType(first?.MessageBody)}`;
    }
    return `sqs:${action}:${queue}`;
  }
  if (service === 'dynamodb') {
    const table = input.TableName ?? Object.keys((input.RequestItems as object | undefined) ?? {})[0];
    return `dynamodb:${action}:${name(table)}`;
  }
  return `${service}:${action}`;
}

/** An HTTP proxy in front of one emulator that counts what reaches it. */
async function countingProxy(
  service: string,
  upstream: string,
  counter: () => Counter,
  names: Map<string, string>,
) {
  const target = new URL(upstream);
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const key = classify(service, String(req.headers['x-amz-target'] ?? ''), body.toString('utf8'), names);
      const c = counter();
      // A BatchWriteItem is billed per item: counted so (writes held to the batch end).
      const items = key.startsWith('dynamodb:BatchWriteItem')
        ? Object.values(JSON.parse(body.toString('utf8')).RequestItems as Record<string, unknown[]>).flat()
            .length
        : 1;
      c.calls.set(key, (c.calls.get(key) ?? 0) + items);
      const out = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (upstreamRes) => {
          const back: Buffer[] = [];
          upstreamRes.on('data', (b: Buffer) => back.push(b));
          upstreamRes.on('end', () => {
            const payload = Buffer.concat(back);
            if (key.startsWith('sqs:ReceiveMessage')) {
              // Counted when the long poll returns: the phase the messages arrived in.
              const now = counter();
              let n = 0;
              try {
                n = ((JSON.parse(payload.toString('utf8')) as { Messages?: unknown[] }).Messages ?? [])
                  .length;
              } catch {
                n = 0;
              }
              if (n > 0) {
                now.receivesWithMessages += 1;
                now.messagesReceived += n;
              } else now.emptyReceives += 1;
            }
            res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers).end(payload);
          });
        },
      );
      out.on('error', () => res.writeHead(502).end());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP proxy in front of the receiver that counts bytes each way. */
async function wireCounter(port: number) {
  const bytes = { out: 0, in: 0 };
  const sockets = new Set<import('node:net').Socket>();
  const server = createTcpServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (b: Buffer) => {
      bytes.out += b.length;
    });
    upstream.on('data', (b: Buffer) => {
      bytes.in += b.length;
    });
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    bytes,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ApiCallOptions {
  /** Deliveries in each healthy phase (a multiple of 10). */
  healthy: number;
  /** Deliveries through the whole failing chain. */
  failing: number;
  /**
   * Where connection secrets are kept (docs/design.md §5 "The KMS secret store"): the local KMS key
   * seals them with `kms`. @default 'secrets-manager'
   */
  secretStore?: 'secrets-manager' | 'kms';
}

/**
 * Every client through counting proxies: one per emulator, and a TCP proxy in front of the
 * receiver. The SQS client sends to the host of the queue URL (useQueueUrlAsEndpoint): every
 * queue URL points at the SQS proxy too (fauxqs finds a queue by its path alone).
 */
async function countedRoute(
  aws: LocalAws,
  receiverPort: number,
  counter: () => Counter,
  secretStore: 'secrets-manager' | 'kms',
): Promise<Route & { wire: Awaited<ReturnType<typeof wireCounter>> }> {
  const { env } = aws;
  const store: SecretStore =
    secretStore === 'kms'
      ? { kind: 'kms', keyArn: localKeyArn(env.AWS_REGION!) }
      : { kind: 'secrets-manager' };
  const names = new Map<string, string>();
  for (const [key, value] of Object.entries(aws.resources as unknown as Record<string, unknown>)) {
    if (typeof value === 'string' && /Table$|Url$/.test(key))
      names.set(lastSegment(value), key.replace(/Url$|Table$/, '').toLowerCase() || key);
  }
  const endpointKeys = Object.keys(env).filter((k) => k.startsWith('AWS_ENDPOINT_URL_'));
  const proxies = await Promise.all(
    endpointKeys.map(async (key) => {
      const service = key.slice('AWS_ENDPOINT_URL_'.length).toLowerCase().replace(/_/g, '');
      return { key, proxy: await countingProxy(service, env[key]!, counter, names) };
    }),
  );
  const wire = await wireCounter(receiverPort);
  const proxied: Record<string, string> = { ...env };
  for (const { key, proxy } of proxies) proxied[key] = proxy.url;
  const sqsProxy = proxied.AWS_ENDPOINT_URL_SQS!;
  const viaProxy = (url: string) => `${sqsProxy}${new URL(url).pathname}`;
  for (const [key, value] of Object.entries(proxied))
    if (value.startsWith(env.AWS_ENDPOINT_URL_SQS!)) proxied[key] = viaProxy(value);
  const resources = Object.fromEntries(
    Object.entries(aws.resources).map(([key, value]) => [
      key,
      typeof value === 'string' && key.endsWith('Url') ? viaProxy(value) : value,
    ]),
  ) as unknown as Route['resources'];
  return {
    env: proxied,
    endpoints: servicesFromEnv(proxied).endpoints,
    snsEndpoint: proxied.AWS_ENDPOINT_URL_SNS!,
    runnerSqsEndpoint: sqsProxy,
    resources: { ...resources, secretStore: store },
    port: wire.port,
    settings: store.kind === 'kms' ? { [ENV.secretStore]: store.kind, [ENV.secretKeyArn]: store.keyArn } : {},
    wire,
    close: async () => {
      await Promise.all([wire.close(), ...proxies.map((p) => p.proxy.close())]);
    },
  };
}

export async function measureApiCalls(options: ApiCallOptions): Promise<ApiCallFigures> {
  const measuredAt = new Date().toISOString();
  const secretStore = options.secretStore ?? 'secrets-manager';
  let current = newCounter();
  const counter = () => current;
  let wire: Awaited<ReturnType<typeof wireCounter>> | undefined;
  const local = await startLocalMode({
    name: 'api calls',
    runnerConcurrency: 4,
    runnerWarnings: true,
    route: async (aws, port) => {
      const route = await countedRoute(aws, port, counter, secretStore);
      wire = route.wire;
      return route;
    },
  });
  const { receipts, management, capture, until, origin } = local;
  /** Waits until the counted calls stop changing: the last attempt-log writes and deletes. */
  const settle = async () => {
    let last = -1;
    for (;;) {
      await sleep(400);
      const total = [...current.calls.entries()]
        .filter(([k]) => !k.startsWith('sqs:ReceiveMessage'))
        .reduce((s, [, n]) => s + n, 0);
      if (total === last) return;
      last = total;
    }
  };

  try {
    capture.start(false);
    const okApp = { id: 'app_cost_ok', name: 'Cost ok' };
    const failApp = { id: 'app_cost_fail', name: 'Cost fail' };
    await management.connections.create({ applicationId: okApp.id, name: 'ok', url: `${origin}/ok` });
    await management.connections.create({ applicationId: failApp.id, name: 'fail', url: `${origin}/fail` });
    // Warm-up: both connections and secrets cached, pools open (a warm Lambda container).
    await management.publisher.publishUserIdentified({ user: user('usr_warm_ok'), application: okApp });
    await management.publisher.publishUserIdentified({ user: user('usr_warm_fail'), application: failApp });
    await until(
      () => receipts.filter((x) => x.path === '/fail').length >= 4 && receipts.some((x) => x.path === '/ok'),
      60_000,
      'warm-up',
    );
    await settle();
    const warmUp = Object.fromEntries(current.calls);

    const phase = async (
      deliveries: number,
      path: string,
      attemptsEach: number,
      publish: () => Promise<void>,
    ) => {
      current = newCounter();
      const before = receipts.filter((x) => x.path === path).length;
      const wireBefore = { ...wire!.bytes };
      await publish();
      await until(
        () => receipts.filter((x) => x.path === path).length >= before + deliveries * attemptsEach,
        90_000,
        `${path} deliveries`,
      );
      await settle();
      const c = current;
      return {
        deliveries,
        attempts: receipts.filter((x) => x.path === path).length - before,
        calls: Object.fromEntries([...c.calls.entries()].sort()),
        receivesWithMessages: c.receivesWithMessages,
        messagesReceived: c.messagesReceived,
        emptyReceives: c.emptyReceives,
        wireBytesOut: wire!.bytes.out - wireBefore.out,
        wireBytesIn: wire!.bytes.in - wireBefore.in,
      } satisfies PhaseCounts;
    };
    const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const healthy = await phase(options.healthy, '/ok', 1, async () => {
      for (const id of ids('usr_one_', options.healthy))
        await management.publisher.publishUserIdentified({ user: user(id), application: okApp });
    });
    const healthyBatched = await phase(options.healthy, '/ok', 1, async () => {
      const all = ids('usr_ten_', options.healthy);
      for (let i = 0; i < all.length; i += 10)
        await management.publisher.publishUserIdentifiedBatch(
          all.slice(i, i + 10).map((id) => ({ user: user(id), application: okApp })),
        );
    });
    const failing = await phase(options.failing, '/fail', 4, async () => {
      for (const id of ids('usr_fail_', options.failing))
        await management.publisher.publishUserIdentified({ user: user(id), application: failApp });
    });
    return { measuredAt, phases: { healthy, healthyBatched, failing }, warmUp, secretStore, connections: 2 };
  } finally {
    await local.stop();
  }
}
