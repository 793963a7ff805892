/**
 * The receivers of the reliability harness: real HTTPS servers on loopback, one per
 * connection, each verifying every signature with the receiver library (`verifyWebhook`)
 * and counting every request it sees. The ledger is computed from what they saw, not from
 * what the dispatcher says it did.
 *
 * A receiver "accepts" a delivery when it answers a verified request with a 2xx status.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../../lambdas/receiver';
import { LOCAL_HOST } from '../../local/listen';
import { createLocalPki, type LocalPki } from '../../local/tls';

/** How a receiver answers. */
export type Behaviour =
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
  readonly behaviour: Behaviour;
  readonly connectionId: string | undefined;
  /** TCP connections accepted (for `tls-untrusted`: one per attempt). */
  readonly connections: number;
  /** Requests read, verified or not. */
  readonly requests: number;
  /** Binds the receiver to the connection it serves and the secret it verifies with. */
  bind(connectionId: string, secret: string): void;
  /** Answers from now on as `behaviour` (an endpoint that comes back, or goes down). Not for `tls-untrusted`. */
  behave(behaviour: Exclude<Behaviour, 'tls-untrusted'>): void;
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
  private readonly servers: Server[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private untrusted: LocalPki | undefined;

  /** `pki`: the certificate the trusted receivers serve (its CA is the one the dispatcher trusts). */
  constructor(private readonly pki: LocalPki) {}

  async add(behaviour: Behaviour, options: ReceiverOptions = {}): Promise<FleetReceiver> {
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
    const server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        state.requests++;
        this.handle(state.behaviour, options, state, req, res, Buffer.concat(chunks));
      });
    });
    server.keepAliveTimeout = 10_000;
    server.on('connection', (socket: Socket) => {
      state.connections++;
      socket.on('error', () => {});
    });
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => server.listen(0, LOCAL_HOST, resolve));
    this.servers.push(server);
    const port = (server.address() as AddressInfo).port;
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
    behaviour: Behaviour,
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
        answer(200, {}, '{"received":true}');
        return;
      case 'fail':
        answer(500, {}, '{"error":"internal error"}');
        return;
      case 'client-error':
        answer(404, {}, '{"error":"no such hook"}');
        return;
      case 'flaky':
        if (delivery.sends.length <= 2) answer(503, {}, '{"error":"busy, try again"}');
        else answer(200, {}, '{"received":true}');
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
          if (!res.destroyed) answer(200, {}, '{"received":true}');
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
        answer(200, {}, '{"received":true}');
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
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }
}
