/**
 * A fault-injecting HTTP reverse proxy for the local AWS endpoints (fauxqs, dynalite, the
 * local Secrets Manager). The code under test is pointed at the proxy instead of the
 * emulator; the proxy passes requests through until told to fail some of them, for a while:
 *
 * - `error`: answer with an AWS-shaped error (`{"__type":"ServiceUnavailable",…}`, header
 *   `x-amzn-ErrorType`, status 503 unless told otherwise), without reaching the emulator;
 * - `reset`: accept the connection and drop it before answering;
 * - `delay`: pass the request through after a pause;
 * - `refuse` (whole endpoint): stop listening, so connections are refused, until the window ends.
 *
 * A rule can target operations by `X-Amz-Target` (e.g. only `AmazonSQS.SendMessage` or only
 * `DynamoDB_20120810.PutItem`) and ends after `durationMs` or `count` hits. Listens on
 * 127.0.0.1 only. Test and harness code; nothing in the product imports it.
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { close, LOCAL_HOST, listen } from '../../local/listen';

export type FaultKind = 'error' | 'reset' | 'delay';

export interface FaultRule {
  readonly fault: FaultKind;
  /** `X-Amz-Target` values the rule applies to; every request when absent. */
  readonly operations?: readonly string[];
  /** `error`: HTTP status. @default 503 */
  readonly status?: number;
  /** `error`: the AWS error code (`__type`, `x-amzn-ErrorType`). @default 'ServiceUnavailable' (500: 'InternalFailure') */
  readonly errorType?: string;
  /** `delay`: pause before passing through. @default 1 000 */
  readonly delayMs?: number;
  /** The rule expires this long after it is added. */
  readonly durationMs?: number;
  /** The rule expires after this many hits. */
  readonly count?: number;
  /** Fraction of matching requests hit (0–1). @default 1 */
  readonly probability?: number;
  /** A name for reports. */
  readonly label?: string;
}

/** What one rule did, for the ledger of a fault scenario. */
export interface FaultRecord {
  readonly label: string;
  readonly fault: FaultKind | 'refuse';
  readonly operations: readonly string[] | 'all';
  readonly startedAt: number;
  endedAt?: number;
  hits: number;
}

export interface FaultProxyStats {
  /** Requests forwarded to the emulator, by operation. */
  readonly passed: Record<string, number>;
  /** Requests a fault answered (or dropped), by operation. */
  readonly faulted: Record<string, number>;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: give this to the SDK client under test as its `endpoint`. */
  readonly endpoint: string;
  readonly target: string;
  /** Adds a rule, effective at once; its record counts the hits and notes when it ended. */
  inject(rule: FaultRule): FaultRecord;
  /** Stops accepting connections for `durationMs` (or until {@link clear}). */
  refuse(durationMs?: number, label?: string): Promise<FaultRecord>;
  /** Ends every rule and the refusal now. */
  clear(): Promise<void>;
  /** Every rule and refusal so far, in order. */
  readonly history: readonly FaultRecord[];
  stats(): FaultProxyStats;
  stop(): Promise<void>;
}

interface ActiveRule {
  readonly rule: FaultRule;
  readonly record: FaultRecord;
  readonly expiresAt: number;
}

const JSON_ERROR_TYPE = 'application/x-amz-json-1.0';

/** Starts a proxy in front of `target` (an `http://host:port` origin) on a free loopback port. */
export async function startFaultProxy(target: string, options: { name?: string } = {}): Promise<FaultProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const sockets = new Set<Socket>();
  const history: FaultRecord[] = [];
  let rules: ActiveRule[] = [];
  const passed: Record<string, number> = {};
  const faulted: Record<string, number> = {};
  let refusal: { record: FaultRecord; timer?: NodeJS.Timeout; end(): void } | undefined;
  /** Listening again after the last refusal (resolved when there was none). */
  let reopened: Promise<void> = Promise.resolve();
  const name = options.name ?? upstream.host;

  const server: Server = createServer((req, res) => handle(req, res));
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;

  function match(operation: string): ActiveRule | undefined {
    const now = Date.now();
    rules = rules.filter((r) => {
      const alive = r.expiresAt > now && (r.rule.count === undefined || r.record.hits < r.rule.count);
      if (!alive) r.record.endedAt ??= Math.min(now, r.expiresAt);
      return alive;
    });
    return rules.find(
      (r) =>
        (!r.rule.operations || r.rule.operations.includes(operation)) &&
        (r.rule.probability === undefined || Math.random() < r.rule.probability),
    );
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const operation = String(req.headers['x-amz-target'] ?? `${req.method} ${req.url ?? ''}`);
    const hit = match(operation);
    if (hit) {
      hit.record.hits++;
      faulted[operation] = (faulted[operation] ?? 0) + 1;
      const { rule } = hit;
      if (rule.fault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (rule.fault === 'error') {
        // Read the request first, so the connection stays usable for the next call.
        req.resume();
        req.on('end', () => answerError(res, rule, name));
        return;
      }
      setTimeout(() => forward(req, res, operation), rule.delayMs ?? 1_000);
      return;
    }
    forward(req, res, operation);
  }

  function forward(req: IncomingMessage, res: ServerResponse, operation: string): void {
    passed[operation] = (passed[operation] ?? 0) + 1;
    const out = httpRequest(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    out.on('error', () => {
      // The emulator itself went away: the client sees the connection drop, as it would.
      res.destroy();
    });
    req.pipe(out);
  }

  function expire(record: FaultRecord): void {
    const now = Date.now();
    rules = rules.filter((r) => {
      if (r.record !== record) return true;
      r.record.endedAt ??= now;
      return false;
    });
  }

  return {
    endpoint: `http://${LOCAL_HOST}:${port}`,
    target,
    history,
    inject(rule) {
      const record: FaultRecord = {
        label: rule.label ?? `${rule.fault}${rule.status ? ` ${rule.status}` : ''}`,
        fault: rule.fault,
        operations: rule.operations ?? 'all',
        startedAt: Date.now(),
        hits: 0,
      };
      history.push(record);
      const expiresAt =
        rule.durationMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + rule.durationMs;
      rules.push({ rule, record, expiresAt });
      if (rule.durationMs !== undefined) {
        setTimeout(() => expire(record), rule.durationMs).unref();
      }
      return record;
    },
    async refuse(durationMs, label = 'connections refused') {
      if (refusal) return refusal.record;
      const record: FaultRecord = {
        label,
        fault: 'refuse',
        operations: 'all',
        startedAt: Date.now(),
        hits: 0,
      };
      history.push(record);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      let ended!: () => void;
      reopened = new Promise<void>((resolve) => {
        ended = resolve;
      }).then(async () => {
        await listen(server, port);
        record.endedAt = Date.now();
      });
      refusal = {
        record,
        end: () => {
          if (refusal?.timer) clearTimeout(refusal.timer);
          refusal = undefined;
          ended();
        },
      };
      if (durationMs !== undefined) refusal.timer = setTimeout(() => refusal?.end(), durationMs);
      return record;
    },
    async clear() {
      for (const r of rules) r.record.endedAt ??= Date.now();
      rules = [];
      refusal?.end();
      await reopened;
    },
    stats() {
      return { passed: { ...passed }, faulted: { ...faulted } };
    },
    async stop() {
      refusal?.end();
      await reopened.catch(() => {});
      await close(server);
      agent.destroy();
    },
  };
}

function answerError(res: ServerResponse, rule: FaultRule, name: string): void {
  const status = rule.status ?? 503;
  const type = rule.errorType ?? (status === 500 ? 'InternalFailure' : 'ServiceUnavailable');
  const body = JSON.stringify({
    __type: type,
    message: `${name} is unavailable (injected fault${rule.label ? `: ${rule.label}` : ''})`,
  });
  res.writeHead(status, {
    'content-type': JSON_ERROR_TYPE,
    'content-length': Buffer.byteLength(body),
    'x-amzn-errortype': type,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(body);
}
