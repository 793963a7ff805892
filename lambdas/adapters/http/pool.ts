/**
 * The sender's connection pool: Node's keep-alive `https.Agent`, one pool per origin, reused across
 * invocations, with the egress policy applied as each socket opens; and the rule for sending a
 * request again when it met a pooled socket the receiver had already closed (docs/design.md §4 "The
 * sender").
 *
 * Egress (docs/design.md §4, docs/security.md): the host is resolved once, every address is
 * checked against the policy, and the socket connects to the checked address: the check
 * and the connection use the same lookup, so DNS rebinding has no window. IP-literal hosts
 * never reach `lookup`: the agent checks them, with the port, as it opens the socket, so every
 * address and port refusal happens at connect time.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { ClientRequest, ClientRequestArgs } from 'node:http';
import { Agent, type AgentOptions, request } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext } from 'node:tls';
import { type EgressPolicy, isIpLiteral, portRefusal, refusalOf } from '../../core/egress';
import { ReceiverError } from '../../core/errors';
import type { OutboundRequest } from '../../core/types';

/** Time allowed for TCP + TLS set-up, unless the options say otherwise. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long an idle pooled connection to a receiver is kept for the next delivery. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** Idle connections kept per receiver unless the options say otherwise: the dispatcher's default concurrency. */
export const DEFAULT_IDLE_PER_ORIGIN = 10;

/**
 * TLS sessions kept for resumption, one per receiver origin (Node's default is 100): a new
 * connection to an origin whose session is cached resumes it, for 0.74 to 0.92 of the CPU of a full
 * handshake under Lambda's CPU share (docs/performance.md §11, docs/design.md §4 "The sender").
 * About 1,000 origins of a few KB each.
 */
export const TLS_SESSION_CACHE = 1_000;

/** Resolves a host name to all its addresses (injectable for tests: a stub resolver). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** Raised inside the connect path when the policy refuses a destination. */
export class EgressRefusedError extends ReceiverError {
  constructor(message: string) {
    super('EWEBHOOK_EGRESS_REFUSED', message);
    this.name = 'EgressRefusedError';
  }
}

export interface PoolOptions {
  egress: EgressPolicy;
  resolver?: Resolver;
  /**
   * Certificate authorities to trust instead of Node's defaults. Tests and local mode only;
   * the dispatcher in AWS never sets it.
   */
  ca?: string[];
  /** Time allowed for TCP + TLS set-up. @default {@link CONNECT_TIMEOUT_MS} */
  connectTimeoutMs?: number;
  /**
   * Idle connections kept per receiver, and so the most dead pooled sockets a request can meet
   * before a new connection (docs/design.md §4 "The sender"): give the most requests in flight at
   * once (the dispatcher's concurrency), and the pool never closes a connection it could have
   * reused.
   * @default {@link DEFAULT_IDLE_PER_ORIGIN}
   */
  maxIdlePerOrigin?: number;
  /**
   * Told each time a request is sent again after meeting a dead pooled socket (docs/design.md §4
   * "The sender"): counted.
   */
  onResend?: () => void;
  /** TLS sessions kept for resumption (one per origin). @default {@link TLS_SESSION_CACHE} */
  maxCachedSessions?: number;
}

/** A `net.connect` lookup that refuses the whole destination if any address is refused. */
export function egressLookup(policy: EgressPolicy, resolver: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
          return;
        }
        for (const { address } of addresses) {
          const refusal = refusalOf(address, policy);
          if (refusal) {
            callback(new EgressRefusedError(`${hostname} resolves to a refused address: ${refusal}`), '', 4);
            return;
          }
        }
        const family = options.family === 6 ? 6 : options.family === 4 ? 4 : 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (options.all) {
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        } else {
          const first = usable[0] ?? addresses[0]!;
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}

/**
 * Node's https Agent with the egress policy applied as it opens each socket: the port and an
 * IP-literal host here, resolved addresses in {@link egressLookup}, and a deadline for TCP +
 * TLS set-up. Nothing is refused earlier, so the sender's address checks are the ones that
 * see the connection (docs/security.md).
 */
export class EgressAgent extends Agent {
  constructor(
    private readonly policy: EgressPolicy,
    private readonly connectTimeoutMs: number,
    options: AgentOptions,
  ) {
    super(options);
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = options.host ?? options.hostname ?? '';
    const refusal =
      portRefusal(Number(options.port ?? 443), this.policy, host) ??
      (isIpLiteral(host) ? refusalOf(host, this.policy) : undefined);
    if (refusal) {
      callback?.(new EgressRefusedError(refusal), undefined as unknown as Duplex);
      return undefined;
    }
    const socket = super.createConnection(options, callback);
    if (socket) {
      const timer = setTimeout(
        () =>
          socket.destroy(
            Object.assign(new Error(`no TLS connection within ${this.connectTimeoutMs} ms`), {
              code: 'ETIMEDOUT',
            }),
          ),
        this.connectTimeoutMs,
      );
      const done = () => clearTimeout(timer);
      socket.once('secureConnect', done);
      socket.once('close', done);
    }
    return socket;
  }
}

/** Keep-alive connections to receivers through an {@link EgressAgent}. */
export class ConnectionPool {
  private readonly agent: EgressAgent;
  /** Idle connections kept per receiver (and resends a request may need to reach a new one). */
  readonly maxIdlePerOrigin: number;
  private readonly onResend?: () => void;

  constructor(options: PoolOptions) {
    this.maxIdlePerOrigin = options.maxIdlePerOrigin ?? DEFAULT_IDLE_PER_ORIGIN;
    this.onResend = options.onResend;
    this.agent = new EgressAgent(options.egress, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, {
      keepAlive: true,
      // An idle pooled socket is closed after this (or the receiver's own Keep-Alive hint).
      timeout: KEEP_ALIVE_TIMEOUT_MS,
      // At most this many per receiver, so a request that meets only dead pooled sockets reaches
      // a new connection within its resends (docs/design.md §4 "The sender").
      maxFreeSockets: this.maxIdlePerOrigin,
      // A new connection to a receiver seen before resumes its TLS session (docs/design.md §4 "The sender").
      maxCachedSessions: options.maxCachedSessions ?? TLS_SESSION_CACHE,
      lookup: egressLookup(options.egress, options.resolver ?? systemResolver),
      rejectUnauthorized: true,
      // One TLS context for every connection: Node otherwise builds one per new connection (the
      // trust store parsed again), 0.8 of a full handshake's CPU with it shared (docs/design.md §4
      // "The sender").
      secureContext: createSecureContext({
        minVersion: 'TLSv1.2',
        ...(options.ca ? { ca: options.ca } : {}),
      }),
      // Never through a proxy from the environment: the policy judges the receiver's own address.
      proxyEnv: {},
    });
  }

  /** A request on a pooled socket or a new one; written and ended by the caller. */
  open(url: URL, req: Pick<OutboundRequest, 'method' | 'headers'>): ClientRequest {
    return request(url, { method: req.method, headers: req.headers, agent: this.agent });
  }

  /**
   * The resends one request may have, as many as the idle sockets kept per receiver (docs/design.md
   * §4 "The sender").
   */
  resends(): DeadSocketResends {
    return new DeadSocketResends(this.maxIdlePerOrigin, this.onResend);
  }

  /** Closes pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** What a pooled socket the receiver had already closed fails with when a request is written to it. */
const STALE_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * A request written to a pooled socket just as the receiver closes it (its idle timeout ran
 * out and it did not announce it), or through a NAT that forgot the connection, fails before
 * any response. It is then sent again on another socket within the same deadline, as Node's
 * documentation advises (`request.reusedSocket`): the receiver never got it, and if it did,
 * duplicates are allowed (docs/protocol.md §6; receivers de-duplicate on the delivery id).
 * Only a request on a reused socket is sent again, at most `max` times (the idle sockets the
 * pool keeps per receiver, so the last try is a new connection at the latest): a new
 * connection that fails is the attempt's result (docs/design.md §4 "The sender").
 */
export class DeadSocketResends {
  private used = 0;

  constructor(
    private readonly max: number,
    private readonly onResend?: () => void,
  ) {}

  /**
   * Whether `outgoing`, which failed with `error` before any response, goes out again; counts
   * the resend when it does.
   */
  allow(outgoing: ClientRequest, error: unknown): boolean {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (!outgoing.reusedSocket || typeof code !== 'string' || !STALE_SOCKET_CODES.has(code)) return false;
    if (this.used >= this.max) return false;
    this.used++;
    this.onResend?.();
    return true;
  }
}
