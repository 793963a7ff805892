/**
 * The sender's exchange (sender.ts): one HTTPS request and its response, through the pool
 * (pool.ts). Redirects are never followed (Node's client follows none). The whole exchange has
 * one deadline, and at most 1 KiB of the response is read: a larger body is cut off, never
 * buffered.
 */

import type { ClientRequest, IncomingMessage } from 'node:http';
import { SNIPPET_READ_BYTES } from '../../core/constants';
import { ReceiverError } from '../../core/errors';
import type { AttemptResult } from '../../core/types';
import { type DeadSocketResends, EgressRefusedError } from './pool';

/** Why an exchange was cut short by the sender itself (never reported as a network error). */
class ExchangeEndedError extends ReceiverError {
  constructor(message: string) {
    super('exchange_ended', message);
    this.name = 'ExchangeEndedError';
  }
}

/**
 * One attempt on the wire: the status, at most 1 KiB of the body, and one deadline for the
 * whole exchange, connecting included. When the deadline fires or the snippet is complete,
 * the request and its socket are destroyed: nothing more is read or buffered.
 *
 * A request lost before any response on a dead pooled socket is sent again within the same deadline
 * when `resends` allows it (the pool's rule, docs/design.md §4 "The sender"); any other loss is the
 * attempt's result.
 */
export class Exchange {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private outgoing: ClientRequest | undefined;
  private settled = false;
  private status = 0;
  private responded = false;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly url: URL,
    private readonly timeoutMs: number,
    private readonly resolve: (result: AttemptResult) => void,
    private readonly open: () => ClientRequest,
    private readonly body: string,
    private readonly resends: DeadSocketResends,
  ) {
    // Decided after the loop's I/O phase, not in its timer phase: after a stall (a long GC, a
    // starved CPU) the deadline and an answer that reached the socket before it are due together,
    // and timers run first. The answer wins; a retry would deliver it twice.
    this.timer = setTimeout(() => setImmediate(() => this.onDeadline()), timeoutMs);
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
    if (mayResend && !this.responded && this.resends.allow(outgoing, error)) {
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
