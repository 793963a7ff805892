/**
 * The test receivers: real HTTPS servers on loopback, all on {@link serveHttps} with the
 * harness's certificate (pki.ts).
 * - {@link startReceiver}: one receiver that records every request (raw body, headers, arrival
 *   time) and answers with whatever the test's behaviour says (integration, security and
 *   browser tests);
 * - {@link ReceiverFleet}: the reliability harness's receivers, one per connection, each
 *   verifying every signature with the receiver library (`verifyWebhook`) and counting every
 *   request it sees. The ledger is computed from what they saw, not from what the dispatcher
 *   says it did. A fleet receiver "accepts" a delivery when it answers a verified request
 *   with a 2xx status;
 * - the benchmark's receiver runs in a process of its own (receiver-process.ts).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../../lambdas/receiver';
import { LOCAL_HOST } from '../../local/listen';
import { createLocalPki, type LocalPki } from '../../local/tls';
import { spawnReady } from './child';
import { pkiFiles, testPki } from './pki';
import { OK_BODY } from './receiver-pages';

/** What test/support/receiver-process.ts prints when it is listening. */
export interface ReceiverReady {
  readonly ready: true;
  readonly port: number;
}

/** One line per request with BENCH_REPORT=1. */
/** One line per request with BENCH_REPORT=1. */
export interface ReceiverReport {
  readonly path: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly userId: string | undefined;
  readonly status: number;
  readonly at: number;
}

export interface ServedHttps {
  readonly server: Server;
  readonly port: number;
  /** Drops open connections and closes the server. */
  close(): Promise<void>;
}

/** An HTTPS server on a free loopback port that hands each request over with its whole body. */
export async function serveHttps(
  pki: Pick<LocalPki, 'keyPem' | 'certPem'>,
  onRequest: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
): Promise<ServedHttps> {
  const server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => onRequest(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, LOCAL_HOST, resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type Behaviour = (req: ReceivedRequest, res: ServerResponse, n: number) => void;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  behave(behaviour: Behaviour): void;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export const respond =
  (status: number, body = OK_BODY): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  };

export async function startReceiver(behaviour: Behaviour = respond(200), pki = testPki()): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let current = behaviour;
  const waiters: Array<() => void> = [];
  const served = await serveHttps(pki, (req, res, body) => {
    const received: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: body.toString('utf8'),
      at: Date.now(),
    };
    requests.push(received);
    current(received, res, requests.length);
    for (const w of waiters.splice(0)) w();
  });
  const { port } = served;
  return {
    url: `https://${LOCAL_HOST}:${port}/hooks`,
    port,
    requests,
    behave(b) {
      current = b;
    },
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline)
          throw new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return requests.slice(0, count);
    },
    close: served.close,
  };
}

export interface ReceiverProcess {
  readonly port: number;
  /** Called with every request's report (only when started with `report`). */
  onReport(listener: (report: ReceiverReport) => void): void;
  stop(): Promise<void>;
}

/** The benchmark's receiver (receiver-process.ts) in a process of its own, serving `pki`'s certificate. */
export async function startReceiverProcess(
  options: { pki?: LocalPki; report?: boolean } = {},
): Promise<ReceiverProcess> {
  const files = pkiFiles(options.pki);
  try {
    const child = await spawnReady<ReceiverReady>('test/support/receiver-process.ts', [], {
      env: {
        ...process.env,
        BENCH_TLS_CERT_FILE: files.certFile,
        BENCH_TLS_KEY_FILE: files.keyFile,
        BENCH_REPORT: options.report ? '1' : '0',
      },
    });
    return {
      port: child.ready.port,
      onReport: (listener) => child.onLine((line) => listener(JSON.parse(line) as ReceiverReport)),
      stop: async () => {
        await child.stop();
        files.remove();
      },
    };
  } catch (error) {
    files.remove();
    throw error;
  }
}

/** How a receiver answers. */
export type FleetBehaviour =
  /** 200 */
  | 'ok'
  /** 500, always */
  | 'fail'
  /** 503 for the first two requests of a delivery, then 200 */
  | 'flaky'
  /** 404, always */
  | 'client-error'
  /** 301 to another path of the same server (which must never be asked) */
  | 'redirect'
  /** reads the request, then drops the connection without a word */
  | 'reset'
  /** reads the request, never answers */
  | 'hang'
  /** 200 and headers at once, then the body one byte every 100 ms, forever */
  | 'drip'
  /** 200 and a 256 MiB body, written as fast as the client reads */
  | 'huge'
  /** 500 and a 256 MiB body */
  | 'huge-error'
  /** 200 announcing 10 000 bytes, 100 sent, then the connection dropped */
  | 'close-mid'
  /** 200 after `slowMs` */
  | 'slow'
  /** a certificate from a CA the dispatcher does not trust: no request ever arrives */
  | 'tls-untrusted';

export interface Send {
  readonly attempt: number;
  readonly at: number;
  /** Status answered, or `reset`, `none` (hung), `cut` (dropped mid-response). */
  answer: string;
}

export interface DeliveryReceipts {
  readonly deliveryId: string;
  readonly connectionId: string;
  readonly userId: string;
  readonly bodyHash: string;
  readonly sends: Send[];
  /** When, and at which attempt, the receiver first answered 2xx. */
  acceptedAt?: number;
  acceptedAttempt?: number;
}

export interface FleetCounters {
  /** Every HTTP request any receiver read (verified or not). */
  requests: number;
  verified: number;
  /** Signature or timestamp checks that failed: must stay 0. */
  rejected: number;
  rejectedCodes: Record<string, number>;
  /** Requests without a delivery id header or to a receiver not bound to a connection. */
  malformed: number;
  /** Requests to a redirect's target: a followed redirect. Must stay 0. */
  redirectsFollowed: number;
  /** Verified requests whose body differs from the first one of the same delivery. */
  bodyChanged: number;
  /** Verified requests whose delivery id names another connection than the receiver's. */
  misrouted: number;
  /** Largest response body one 'huge' receiver managed to write before the client hung up. */
  largestResponseWritten: number;
}

export interface FleetReceiver {
  readonly url: string;
  readonly port: number;
  /** How it answers now (see {@link FleetReceiver.behave}). */
  readonly behaviour: FleetBehaviour;
  readonly connectionId: string | undefined;
  /** TCP connections accepted (for `tls-untrusted`: one per attempt). */
  readonly connections: number;
  /** Requests read, verified or not. */
  readonly requests: number;
  /** Binds the receiver to the connection it serves and the secret it verifies with. */
  bind(connectionId: string, secret: string): void;
  /** Answers from now on as `behaviour` (an endpoint that comes back, or goes down). Not for `tls-untrusted`. */
  behave(behaviour: Exclude<FleetBehaviour, 'tls-untrusted'>): void;
}

export interface ReceiverOptions {
  readonly slowMs?: number;
  readonly dripEveryMs?: number;
  readonly hugeBytes?: number;
}

const MiB = 1024 * 1024;
const DEFAULT_HUGE_BYTES = 256 * MiB;

export class ReceiverFleet {
  readonly deliveries = new Map<string, DeliveryReceipts>();
  readonly counters: FleetCounters = {
    requests: 0,
    verified: 0,
    rejected: 0,
    rejectedCodes: {},
    malformed: 0,
    redirectsFollowed: 0,
    bodyChanged: 0,
    misrouted: 0,
    largestResponseWritten: 0,
  };
  readonly receivers: FleetReceiver[] = [];
  private readonly served: ServedHttps[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private untrusted: LocalPki | undefined;

  /** `pki`: the certificate the trusted receivers serve (its CA is the one the dispatcher trusts). */
  constructor(private readonly pki: LocalPki) {}

  async add(behaviour: FleetBehaviour, options: ReceiverOptions = {}): Promise<FleetReceiver> {
    let pki = this.pki;
    if (behaviour === 'tls-untrusted') {
      this.untrusted ??= createLocalPki();
      pki = this.untrusted;
    }
    const state = {
      connectionId: undefined as string | undefined,
      secret: '',
      connections: 0,
      requests: 0,
      behaviour,
    };
    const served = await serveHttps(pki, (req, res, body) => {
      state.requests++;
      this.handle(state.behaviour, options, state, req, res, body);
    });
    served.server.keepAliveTimeout = 10_000;
    served.server.on('connection', (socket: Socket) => {
      state.connections++;
      socket.on('error', () => {});
    });
    served.server.on('tlsClientError', () => {});
    this.served.push(served);
    const { port } = served;
    const receiver: FleetReceiver = {
      url: `https://${LOCAL_HOST}:${port}/hooks`,
      port,
      get behaviour() {
        return state.behaviour;
      },
      get connectionId() {
        return state.connectionId;
      },
      get connections() {
        return state.connections;
      },
      get requests() {
        return state.requests;
      },
      bind(connectionId, secret) {
        state.connectionId = connectionId;
        state.secret = secret;
      },
      behave(next) {
        state.behaviour = next;
      },
    };
    this.receivers.push(receiver);
    return receiver;
  }

  private handle(
    behaviour: FleetBehaviour,
    options: ReceiverOptions,
    state: { connectionId?: string; secret: string },
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
  ): void {
    const c = this.counters;
    c.requests++;
    if (req.url === '/moved') {
      c.redirectsFollowed++;
      res.writeHead(200).end();
      return;
    }
    if (!state.connectionId) {
      c.malformed++;
      res.writeHead(500).end('receiver not bound to a connection');
      return;
    }
    let verified: ReturnType<typeof verifyWebhook>;
    try {
      verified = verifyWebhook({ rawBody: body, headers: req.headers, secret: state.secret });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      c.rejected++;
      c.rejectedCodes[error.code] = (c.rejectedCodes[error.code] ?? 0) + 1;
      res.writeHead(401).end();
      return;
    }
    const { deliveryId, attempt } = verified;
    if (!deliveryId || !attempt) {
      c.malformed++;
      res.writeHead(400).end('missing delivery id or attempt');
      return;
    }
    c.verified++;
    if (!deliveryId.endsWith(`_${state.connectionId}`)) c.misrouted++;
    const bodyHash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
    let entry = this.deliveries.get(deliveryId);
    if (!entry) {
      entry = {
        deliveryId,
        connectionId: state.connectionId,
        userId: verified.payload.user?.id ?? '',
        bodyHash,
        sends: [],
      };
      this.deliveries.set(deliveryId, entry);
    } else if (entry.bodyHash !== bodyHash) {
      c.bodyChanged++;
    }
    const send: Send = { attempt, at: Date.now(), answer: 'none' };
    entry.sends.push(send);
    const delivery = entry;
    const answer = (status: number, headers: Record<string, string> = {}, text?: string) => {
      send.answer = String(status);
      if (status >= 200 && status <= 299 && delivery.acceptedAt === undefined) {
        delivery.acceptedAt = send.at;
        delivery.acceptedAttempt = attempt;
      }
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      if (text !== undefined) res.end(text);
    };
    switch (behaviour) {
      case 'ok':
        answer(200, {}, OK_BODY);
        return;
      case 'fail':
        answer(500, {}, '{"error":"internal error"}');
        return;
      case 'client-error':
        answer(404, {}, '{"error":"no such hook"}');
        return;
      case 'flaky':
        if (delivery.sends.length <= 2) answer(503, {}, '{"error":"busy, try again"}');
        else answer(200, {}, OK_BODY);
        return;
      case 'redirect':
        answer(301, { location: `https://${LOCAL_HOST}:${req.socket.localPort}/moved` }, '');
        return;
      case 'reset':
        send.answer = 'reset';
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!res.destroyed) answer(200, {}, OK_BODY);
        }, options.slowMs ?? 500);
        this.timers.add(timer);
        return;
      }
      case 'drip': {
        answer(200, { 'content-type': 'text/plain' });
        res.flushHeaders();
        const timer = setInterval(() => {
          if (res.destroyed) stop();
          else res.write('.');
        }, options.dripEveryMs ?? 100);
        const stop = () => {
          clearInterval(timer);
          this.timers.delete(timer);
          send.answer = '200 (dripping, cut)';
        };
        this.timers.add(timer);
        res.on('close', stop);
        return;
      }
      case 'close-mid': {
        answer(200, { 'content-length': '10000' });
        res.write('x'.repeat(100));
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send.answer = '200 (cut mid-body)';
          res.destroy();
        }, 20);
        this.timers.add(timer);
        return;
      }
      case 'huge':
      case 'huge-error': {
        answer(behaviour === 'huge' ? 200 : 500, { 'content-type': 'text/plain' });
        this.offer(res, options.hugeBytes ?? DEFAULT_HUGE_BYTES);
        return;
      }
      case 'tls-untrusted':
        // Unreachable: the dispatcher refuses the certificate before any request is sent.
        answer(200, {}, OK_BODY);
        return;
    }
  }

  /** Writes up to `total` bytes as fast as the client reads them; records how far it got. */
  private offer(res: ServerResponse, total: number): void {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    const pump = () => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    res.on('close', () => {
      res.removeAllListeners('drain');
      this.counters.largestResponseWritten = Math.max(this.counters.largestResponseWritten, written);
    });
    pump();
  }

  /** Receivers' connection counts by connection id (TLS failures: one connection per attempt). */
  connectionsOf(connectionId: string): number {
    return this.receivers.find((r) => r.connectionId === connectionId)?.connections ?? 0;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) {
      clearTimeout(timer);
      clearInterval(timer);
    }
    this.timers.clear();
    await Promise.all(this.served.map((s) => s.close()));
  }
}
