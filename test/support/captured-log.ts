/** What the dispatcher's log costs: the production Powertools adapter with its output captured. */

import { Logger } from '@aws-lambda-powertools/logger';
import { powertoolsLog } from '../../lambdas/adapters/logger';

/**
 * A trace header as Lambda sets it on every invocation: Powertools copies its root id into
 * each line (`xray_trace_id`), so it is part of the bytes a deployed dispatcher logs.
 */
export const LAMBDA_TRACE_HEADER =
  'Root=1-6740a1b2-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=0';

/**
 * The production log adapter (Powertools, default INFO level unless told otherwise) with its
 * output captured: `start()` diverts stdout and stderr (Powertools writes warnings and
 * errors to stderr; Lambda sends both to CloudWatch Logs) into `lines`, `stop()` gives them
 * back. Nothing else may print while a capture runs.
 */
export function capturedPowertoolsLog(logLevel: 'INFO' | 'WARN' | 'DEBUG' = 'INFO') {
  const lines: string[] = [];
  let bytes = 0;
  let keep = true;
  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((s) => s.write);
  const log = powertoolsLog(new Logger({ serviceName: 'webhook-dispatcher', logLevel }));
  const sink = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    bytes += Buffer.byteLength(text, 'utf8');
    if (keep) lines.push(text);
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof process.stdout.write;
  return {
    log,
    lines,
    get bytes() {
      return bytes;
    },
    /** @param keepLines false to count bytes only (long runs). */
    start(keepLines = true) {
      keep = keepLines;
      lines.length = 0;
      bytes = 0;
      process.env._X_AMZN_TRACE_ID = LAMBDA_TRACE_HEADER;
      for (const stream of streams) stream.write = sink;
    },
    stop() {
      streams.forEach((stream, i) => {
        stream.write = originals[i]!;
      });
      delete process.env._X_AMZN_TRACE_ID;
    },
  };
}
