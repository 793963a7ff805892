/**
 * HttpSender on undici. One keep-alive pool per origin, reused across invocations.
 *
 * Egress (DESIGN.md §4, docs/security.md): the host is resolved once, every address is
 * checked against the policy, and the socket connects to the checked address: the check
 * and the connection use the same lookup, so DNS rebinding has no window. IP-literal hosts
 * never reach `lookup`: the connector checks them, with the scheme and port, as it opens the
 * socket, so every refusal the sender makes happens at connect time. Redirects are never
 * followed (undici follows none unless told to). The whole exchange has one deadline, and
 * at most 1 KiB of the response is read: a larger body is cut off, never buffered.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { SNIPPET_READ_BYTES } from '../../core/constants';
import { type EgressPolicy, isIpLiteral, portRefusal, refusalOf } from '../../core/egress';
import type { AttemptResult, HttpSender, OutboundRequest } from '../../core/types';

/** Time allowed for TCP + TLS set-up, unless the options say otherwise. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long an idle pooled connection to a receiver is kept for the next delivery. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/**
 * How far undici's own header and body timers trail the exchange's deadline: the exchange's
 * timer decides, undici's only back it up should that timer ever fail to fire.
 */
const UNDICI_TIMEOUT_SLACK_MS = 1_000;

/** Resolves a host name to all its addresses (injectable for tests: a stub resolver). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** Raised inside the connect path when the policy refuses a destination. */
export class EgressRefusedError extends Error {
  readonly code = 'EWEBHOOK_EGRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

export interface UndiciSenderOptions {
  egress: EgressPolicy;
  resolver?: Resolver;
  /**
   * Certificate authorities to trust instead of Node's defaults. Tests and local mode only;
   * the dispatcher in AWS never sets it.
   */
  ca?: string[];
  /** Time allowed for TCP + TLS set-up. @default {@link CONNECT_TIMEOUT_MS} */
  connectTimeoutMs?: number;
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
 * A connector that applies the egress policy as it opens each socket: scheme, port and IP
 * literal here, resolved addresses in {@link egressLookup}. Nothing is refused earlier, so the
 * sender's only checks are the ones that must see the connection (docs/security.md).
 */
export function egressConnector(
  policy: EgressPolicy,
  options: buildConnector.BuildOptions & { lookup: LookupFunction },
): buildConnector.connector {
  const connect = buildConnector(options);
  return (opts, callback) => {
    const refusal = connectRefusal(opts, policy);
    if (refusal) callback(new EgressRefusedError(refusal), null);
    else connect(opts, callback);
  };
}

function connectRefusal(opts: buildConnector.Options, policy: EgressPolicy): string | undefined {
  if (opts.protocol !== 'https:') return `scheme ${opts.protocol} is refused; only https: is delivered`;
  const port = opts.port ? Number(opts.port) : 443;
  const badPort = portRefusal(port, policy, opts.hostname);
  if (badPort) return badPort;
  if (isIpLiteral(opts.hostname)) return refusalOf(opts.hostname, policy);
  return undefined;
}

export class UndiciSender implements HttpSender {
  private readonly agent: Agent;

  constructor(options: UndiciSenderOptions) {
    this.agent = new Agent({
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connect: egressConnector(options.egress, {
        timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        lookup: egressLookup(options.egress, options.resolver ?? systemResolver),
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        ...(options.ca ? { ca: options.ca } : {}),
      }),
    });
  }

  /** Closes pooled connections (tests, local mode shutdown). */
  close(): Promise<void> {
    return this.agent.close();
  }

  send(req: OutboundRequest): Promise<AttemptResult> {
    const { url } = req;
    return new Promise((resolve) => {
      const exchange = new Exchange(url, req.timeoutMs, resolve);
      try {
        this.agent.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: req.method,
            headers: req.headers,
            body: req.body,
            headersTimeout: req.timeoutMs + UNDICI_TIMEOUT_SLACK_MS,
            bodyTimeout: req.timeoutMs + UNDICI_TIMEOUT_SLACK_MS,
          },
          exchange,
        );
      } catch (error) {
        // undici refuses some requests before dispatching them (a header value it cannot send).
        exchange.onResponseError(undefined, error as Error);
      }
    });
  }
}

/** Why an exchange was cut short by the sender itself (never reported as a network error). */
class ExchangeEndedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExchangeEndedError';
  }
}

/**
 * One attempt on the wire, as an undici dispatch handler: the status, at most 1 KiB of the
 * body, and one deadline for the whole exchange. No response stream is made: the body is
 * read from the parser's chunks directly (a stream per response was a third of the sender's
 * CPU, docs/performance.md).
 *
 * The deadline covers connecting too. undici hands a request its controller only once it has
 * a connection, so a receiver that accepts TCP and never finishes TLS would otherwise hold
 * the attempt until the connect timeout: the attempt ends when the timer fires, and the
 * request left behind is aborted as soon as undici starts it (or fails on its own).
 */
class Exchange implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private status = 0;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly url: URL,
    private readonly timeoutMs: number,
    private readonly resolve: (result: AttemptResult) => void,
  ) {
    this.timer = setTimeout(() => this.onDeadline(), timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Started after the deadline (it waited for a connection): it goes no further.
    if (this.settled) controller.abort(new ExchangeEndedError('the attempt already ended'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    // 1xx responses are interim: the final status follows.
    if (statusCode >= 200) this.status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    // Beyond the kept 1 KiB: redaction must see a value that crosses the cut (core/redact.ts).
    const room = SNIPPET_READ_BYTES - this.size;
    this.chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.size += Math.min(chunk.length, room);
    if (this.size < SNIPPET_READ_BYTES) return;
    // Enough to keep: drop the connection rather than read (or buffer) the rest.
    this.finish();
    controller.abort(new ExchangeEndedError('response snippet complete'));
  }

  onResponseEnd(): void {
    if (!this.settled) this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
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
    this.controller?.abort(new ExchangeEndedError(`deadline of ${this.timeoutMs} ms reached`));
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
