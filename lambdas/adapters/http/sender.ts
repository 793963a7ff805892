/**
 * HttpSender on Node's own `node:https`. One keep-alive pool per origin, reused across
 * invocations. Node's HTTP client is already in every Lambda (the AWS SDK sends through it),
 * so the sender adds no HTTP library to the cold start (docs/design.md §4 "The sender").
 *
 * The sender judges what it is given (the scheme, framing headers), then runs one exchange
 * (exchange.ts: one deadline, no redirects, at most 1 KiB read) through the pool (pool.ts: egress
 * checked as each socket opens, dead pooled sockets resent over, docs/design.md §4 "The sender"). A
 * scheme other than https: never reaches the pool; every address and port refusal happens at
 * connect time (docs/design.md §4, docs/security.md).
 */

import { FRAMING_HEADERS, PROXY_HEADER_PREFIX } from '../../core/headers';
import type { HttpSender } from '../../core/ports';
import type { AttemptResult, OutboundRequest } from '../../core/types';
import { Exchange } from './exchange';
import { ConnectionPool, type PoolOptions } from './pool';

export {
  CONNECT_TIMEOUT_MS,
  DEFAULT_IDLE_PER_ORIGIN,
  EgressRefusedError,
  type Resolver,
} from './pool';

export type HttpsSenderOptions = PoolOptions;

export class HttpsSender implements HttpSender {
  private readonly pool: ConnectionPool;
  /** Idle connections kept per receiver (and resends a request may need to reach a new one). */
  readonly maxIdlePerOrigin: number;

  constructor(options: HttpsSenderOptions) {
    this.pool = new ConnectionPool(options);
    this.maxIdlePerOrigin = this.pool.maxIdlePerOrigin;
  }

  /** Closes pooled connections (tests, local mode shutdown). */
  close(): Promise<void> {
    this.pool.close();
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
      const open = () => this.pool.open(url, req);
      new Exchange(url, req.timeoutMs, resolve, open, req.body, this.pool.resends()).begin();
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
