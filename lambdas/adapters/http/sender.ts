/**
 * HttpSender on undici. One keep-alive pool per origin, reused across invocations.
 *
 * Egress (DESIGN.md §4, docs/security.md): the host is resolved once, every address is
 * checked against the policy, and the socket connects to the checked address: the check
 * and the connection use the same lookup, so DNS rebinding has no window. IP-literal hosts
 * never reach `lookup`, so they are checked before the request. Redirects are never
 * followed (undici follows none unless told to). The whole exchange has one deadline, and
 * at most 1 KiB of the response is read: a larger body is cut off, never buffered.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Dispatcher, Agent as UndiciAgent } from 'undici';
import { RESPONSE_SNIPPET_BYTES } from '../../core/constants';
import { type EgressPolicy, isIpLiteral, portRefusal, refusalOf } from '../../core/egress';
import type { AttemptResult, HttpSender, OutboundRequest } from '../../core/types';

/*
 * The two undici modules the sender uses, required directly. undici's index also loads
 * fetch, WebSocket, EventSource, the mock and cache layers, none of which the dispatcher
 * calls: a fifth of the bundle and part of every cold start (docs/performance.md). The paths
 * are undici's own (8.x, pinned in package.json): an upgrade that moves them fails the
 * build and every sender test, never silently.
 */
const Agent: typeof UndiciAgent = require('undici/lib/dispatcher/agent.js');
const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData> =
  require('undici/lib/api/api-request.js');

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
  /** Time allowed for TCP + TLS set-up. @default 10 000 */
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

/** Receiver URLs whose parse and static verdict a sender keeps (about one per connection). */
const MAX_KNOWN_DESTINATIONS = 1_000;

interface Destination {
  url: URL;
  /** Path and query, as the request line sends them. */
  path: string;
  /** Why the URL is refused before any connection, if it is. */
  refusal: string | undefined;
}

export class UndiciSender implements HttpSender {
  private readonly agent: UndiciAgent;
  /**
   * Each receiver URL parsed and judged once: the verdict depends only on the URL and this
   * sender's fixed policy, and telling a host name from an IP literal alone cost ~20 µs per
   * delivery (docs/performance.md).
   */
  private readonly destinations = new Map<string, Destination>();

  constructor(private readonly options: UndiciSenderOptions) {
    const connectTimeout = options.connectTimeoutMs ?? 10_000;
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      connectTimeout,
      connect: {
        lookup: egressLookup(options.egress, options.resolver ?? systemResolver),
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        ...(options.ca ? { ca: options.ca } : {}),
      },
    });
  }

  /** Closes pooled connections (tests, local mode shutdown). */
  close(): Promise<void> {
    return this.agent.close();
  }

  async send(req: OutboundRequest): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const { url, path, refusal } = this.destination(req.url);
    if (refusal) return { kind: 'blocked', durationMs: 0, error: refusal };

    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const res = await untilAborted(
        request.call(this.agent, {
          origin: url.origin,
          path,
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal,
          // The signal is the deadline; undici's own timers only back it up.
          headersTimeout: req.timeoutMs + 1_000,
          bodyTimeout: req.timeoutMs + 1_000,
        }),
        signal,
      );
      const snippet = await readSnippet(res.body, RESPONSE_SNIPPET_BYTES);
      return { kind: 'response', status: res.statusCode, snippet, durationMs: elapsed() };
    } catch (error) {
      if (signal.aborted) {
        return {
          kind: 'timeout',
          durationMs: elapsed(),
          error: `no complete response within ${req.timeoutMs} ms`,
        };
      }
      const refused = findRefusal(error);
      if (refused) return { kind: 'blocked', durationMs: elapsed(), error: refused.message };
      return { kind: 'network', durationMs: elapsed(), error: describeNetworkError(error, url) };
    }
  }

  private destination(href: string): Destination {
    let known = this.destinations.get(href);
    if (!known) {
      const url = new URL(href);
      known = { url, path: `${url.pathname}${url.search}`, refusal: this.staticRefusal(url) };
      if (this.destinations.size >= MAX_KNOWN_DESTINATIONS) this.destinations.clear();
      this.destinations.set(href, known);
    }
    return known;
  }

  private staticRefusal(url: URL): string | undefined {
    if (url.protocol !== 'https:') return `scheme ${url.protocol} is refused; only https: is delivered`;
    const port = url.port ? Number(url.port) : 443;
    const badPort = portRefusal(port, this.options.egress);
    if (badPort) return badPort;
    if (isIpLiteral(url.hostname)) return refusalOf(url.hostname, this.options.egress);
    return undefined;
  }
}

/**
 * undici acts on an abort only once the request has a connection, so a receiver that
 * accepts TCP and never finishes TLS would hold the attempt until the connect timeout. The
 * deadline must cover connecting too: the attempt ends when the signal fires, and the
 * request left behind is failed by undici as soon as it connects or gives up.
 */
function untilAborted(
  pending: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (res) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) res.body.destroy();
        resolve(res);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Reads at most `limit` bytes of a body, then drops the connection rather than buffer the
 * rest. Plain stream events rather than `for await`, whose iterator set-up costs a few µs per
 * response on the hot path (docs/performance.md).
 */
function readSnippet(body: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      body.off('data', onData);
      resolve(
        Buffer.concat(chunks, size)
          .toString('utf8')
          .replace(/\uFFFD+$/, ''),
      );
    };
    const onData = (chunk: Buffer) => {
      const room = limit - size;
      chunks.push(chunk.length >= room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size < limit) return;
      body.destroy();
      finish();
    };
    body.on('data', onData);
    body.once('end', finish);
    // Stays attached after `finish`: a body destroyed early still emits undici's abort error,
    // which must be heard (by a promise already settled, so it changes nothing).
    body.once('error', reject);
  });
}

function findRefusal(error: unknown): EgressRefusedError | undefined {
  let current = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof EgressRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `CODE: message`, with the URL's query string (which may hold a token) never included. */
function describeNetworkError(error: unknown, url: URL): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  let message = e.message ?? String(error);
  if (e.cause?.message && !message.includes(e.cause.message)) message = `${message} (${e.cause.message})`;
  if (url.search) message = message.split(url.search).join('');
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
