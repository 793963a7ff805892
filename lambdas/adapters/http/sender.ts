/**
 * HttpSender on Node's own `node:https`. One keep-alive pool per origin, reused across
 * invocations. Node's HTTP client is already in every Lambda (the AWS SDK sends through it),
 * so the sender adds no HTTP library to the cold start (decision D30).
 *
 * Egress (docs/design.md §4, docs/security.md): the host is resolved once, every address is
 * checked against the policy, and the socket connects to the checked address: the check
 * and the connection use the same lookup, so DNS rebinding has no window. IP-literal hosts
 * never reach `lookup`: the agent checks them, with the port, as it opens the socket, so every
 * address and port refusal happens at connect time (a scheme other than https: never gets
 * that far). Redirects are never followed (Node's client follows none). The whole exchange
 * has one deadline, and at most 1 KiB of the response is read: a larger body is cut off,
 * never buffered.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { ClientRequest, ClientRequestArgs, IncomingMessage } from 'node:http';
import { Agent, type AgentOptions, request } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { SNIPPET_READ_BYTES } from '../../core/constants';
import { type EgressPolicy, isIpLiteral, portRefusal, refusalOf } from '../../core/egress';
import { ReceiverError } from '../../core/errors';
import { FRAMING_HEADERS, PROXY_HEADER_PREFIX } from '../../core/headers';
import type { HttpSender } from '../../core/ports';
import type { AttemptResult, OutboundRequest } from '../../core/types';

/** Time allowed for TCP + TLS set-up, unless the options say otherwise. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long an idle pooled connection to a receiver is kept for the next delivery. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** Idle connections kept per receiver unless the options say otherwise: the dispatcher's default concurrency. */
export const DEFAULT_IDLE_PER_ORIGIN = 10;

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

export interface HttpsSenderOptions {
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
   * before a new connection (D31): give the most requests in flight at once (the dispatcher's
   * concurrency), and the pool never closes a connection it could have reused.
   * @default {@link DEFAULT_IDLE_PER_ORIGIN}
   */
  maxIdlePerOrigin?: number;
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

export class HttpsSender implements HttpSender {
  private readonly agent: EgressAgent;
  /** Idle connections kept per receiver (and resends a request may need to reach a new one). */
  readonly maxIdlePerOrigin: number;

  constructor(options: HttpsSenderOptions) {
    this.maxIdlePerOrigin = options.maxIdlePerOrigin ?? DEFAULT_IDLE_PER_ORIGIN;
    this.agent = new EgressAgent(options.egress, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, {
      keepAlive: true,
      // An idle pooled socket is closed after this (or the receiver's own Keep-Alive hint).
      timeout: KEEP_ALIVE_TIMEOUT_MS,
      // At most this many per receiver, so a request that meets only dead pooled sockets reaches
      // a new connection within its resends (D31).
      maxFreeSockets: this.maxIdlePerOrigin,
      lookup: egressLookup(options.egress, options.resolver ?? systemResolver),
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      // Never through a proxy from the environment: the policy judges the receiver's own address.
      proxyEnv: {},
      ...(options.ca ? { ca: options.ca } : {}),
    });
  }

  /** Closes pooled connections (tests, local mode shutdown). */
  close(): Promise<void> {
    this.agent.destroy();
    return Promise.resolve();
  }

  send(req: OutboundRequest): Promise<AttemptResult> {
    const { url } = req;
    if (url.protocol !== 'https:')
      return Promise.resolve({
        kind: 'blocked',
        durationMs: 0,
        error: `scheme ${url.protocol} is refused; only https: is delivered`,
      });
    const framing = framingHeader(req.headers);
    if (framing)
      return Promise.resolve({
        kind: 'network',
        durationMs: 0,
        error: `header ${framing} is the HTTP client's to set; the request was not sent`,
      });
    return new Promise((resolve) => {
      const open = () => request(url, { method: req.method, headers: req.headers, agent: this.agent });
      new Exchange(url, req.timeoutMs, resolve, open, req.body, this.maxIdlePerOrigin).begin();
    });
  }
}

/**
 * A header that frames the message or the connection, if the request sets one. Node sends
 * what it is given (undici refused these): the core never passes one (it refuses them in a
 * connection's custom headers), and the sender does not rely on that.
 */
function framingHeader(headers: Record<string, string>): string | undefined {
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (FRAMING_HEADERS.has(lower) || lower.startsWith(PROXY_HEADER_PREFIX)) return name;
  }
  return undefined;
}

/** Why an exchange was cut short by the sender itself (never reported as a network error). */
class ExchangeEndedError extends ReceiverError {
  constructor(message: string) {
    super('exchange_ended', message);
    this.name = 'ExchangeEndedError';
  }
}

/** What a pooled socket the receiver had already closed fails with when a request is written to it. */
const STALE_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * One attempt on the wire: the status, at most 1 KiB of the body, and one deadline for the
 * whole exchange, connecting included. When the deadline fires or the snippet is complete,
 * the request and its socket are destroyed: nothing more is read or buffered.
 *
 * A request written to a pooled socket just as the receiver closes it (its idle timeout ran
 * out and it did not announce it), or through a NAT that forgot the connection, fails before
 * any response. The exchange then sends it again on another socket within the same
 * deadline, as Node's documentation advises (`request.reusedSocket`): the receiver never got
 * it, and if it did, duplicates are allowed (docs/protocol.md §6; receivers de-duplicate on the delivery
 * id). Only a request on a reused socket is sent again, at most `maxResends` times (the idle
 * sockets the pool keeps per receiver, so the last try is a new connection at the latest): a new
 * connection that fails is the attempt's result (decisions.md D31).
 */
class Exchange {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private outgoing: ClientRequest | undefined;
  private settled = false;
  private status = 0;
  private responded = false;
  private staleRetries = 0;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly url: URL,
    private readonly timeoutMs: number,
    private readonly resolve: (result: AttemptResult) => void,
    private readonly open: () => ClientRequest,
    private readonly body: string,
    private readonly maxResends: number,
  ) {
    this.timer = setTimeout(() => this.onDeadline(), timeoutMs);
  }

  /** Sends the request, on a pooled socket or a new one. */
  begin(): void {
    let outgoing: ClientRequest;
    try {
      outgoing = this.open();
    } catch (error) {
      // Node refuses some requests before sending them (a header value it cannot send).
      this.fail(error);
      return;
    }
    this.outgoing = outgoing;
    outgoing.on('response', (res) => {
      if (outgoing === this.outgoing) this.onResponse(res);
    });
    outgoing.on('error', (error) => this.lost(outgoing, error, true));
    // Closed with neither a response nor an error: Node drops an unasked-for 101 (upgrade) so.
    // The receiver answered: never sent again. Once a response has begun, its own handlers see
    // the end (the request's close can come first).
    outgoing.on('close', () => {
      if (this.responded) return;
      this.lost(
        outgoing,
        Object.assign(new Error('the connection closed before a final response'), { code: 'ECONNRESET' }),
        false,
      );
    });
    try {
      outgoing.end(this.body);
    } catch (error) {
      this.fail(error);
      outgoing.destroy();
    }
  }

  /**
   * The request ended without a complete exchange: sent again if it failed on a dead pooled
   * socket (`mayResend`: an error event, not a close after an answer), else the attempt's result.
   */
  private lost(outgoing: ClientRequest, error: unknown, mayResend: boolean): void {
    if (outgoing !== this.outgoing || this.settled) return;
    const code = (error as { code?: unknown } | undefined)?.code;
    if (
      mayResend &&
      !this.responded &&
      outgoing.reusedSocket &&
      typeof code === 'string' &&
      STALE_SOCKET_CODES.has(code) &&
      this.staleRetries < this.maxResends
    ) {
      this.staleRetries++;
      this.outgoing = undefined;
      // After this turn, so the agent has let go of the dead socket.
      setImmediate(() => {
        if (!this.settled) this.begin();
      });
      return;
    }
    this.fail(error);
  }

  private onResponse(res: IncomingMessage): void {
    this.responded = true;
    this.status = res.statusCode ?? 0;
    res.on('data', (chunk: Buffer) => this.onData(chunk));
    res.on('end', () => {
      if (!this.settled) this.finish();
    });
    res.on('error', (error) => this.fail(error));
    res.on('close', () => {
      if (!this.settled)
        this.fail(
          Object.assign(new Error('the receiver closed the connection mid-response'), { code: 'ECONNRESET' }),
        );
    });
  }

  private onData(chunk: Buffer): void {
    if (this.settled) return;
    // Beyond the kept 1 KiB: redaction must see a value that crosses the cut (core/redact.ts).
    const room = SNIPPET_READ_BYTES - this.size;
    this.chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.size += Math.min(chunk.length, room);
    if (this.size < SNIPPET_READ_BYTES) return;
    // Enough to keep: drop the connection rather than read (or buffer) the rest.
    this.finish();
    this.outgoing?.destroy(new ExchangeEndedError('response snippet complete'));
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    const refused = findRefusal(error);
    if (refused) this.settle({ kind: 'blocked', durationMs: this.elapsed(), error: refused.message });
    else
      this.settle({
        kind: 'network',
        durationMs: this.elapsed(),
        error: describeNetworkError(error, this.url),
      });
  }

  private onDeadline(): void {
    if (this.settled) return;
    this.settle({
      kind: 'timeout',
      durationMs: this.elapsed(),
      error: `no complete response within ${this.timeoutMs} ms`,
    });
    this.outgoing?.destroy(new ExchangeEndedError(`deadline of ${this.timeoutMs} ms reached`));
  }

  private finish(): void {
    this.settle({
      kind: 'response',
      status: this.status,
      snippet: this.snippet(),
      durationMs: this.elapsed(),
    });
  }

  /** The kept bytes as text, without a character cut in half at the end. */
  private snippet(): string {
    if (this.size === 0) return '';
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const text = bytes.toString('utf8');
    return text.endsWith('\uFFFD') ? text.replace(/\uFFFD+$/, '') : text;
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  private settle(result: AttemptResult): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.chunks = [];
    this.resolve(result);
  }
}
function findRefusal(error: unknown): EgressRefusedError | undefined {
  let current = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof EgressRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Node's generic advice on TLS errors. It is about the dispatcher's own Node, which the customer
 * reading the attempt log cannot change; the certificate code before it says what is wrong.
 */
const NODE_CA_HINT = /;\s*if the root CA is installed locally, try running Node\.js with --use-system-ca\.?/;

/**
 * `CODE: message`, with the URL's query string (which may hold a token) and Node's
 * `--use-system-ca` advice never included.
 */
function describeNetworkError(error: unknown, url: URL): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  let message = e.message ?? String(error);
  if (e.cause?.message && !message.includes(e.cause.message)) message = `${message} (${e.cause.message})`;
  if (url.search) message = message.split(url.search).join('');
  message = message.replace(NODE_CA_HINT, '');
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
