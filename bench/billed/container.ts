/**
 * One Lambda container of the billed benchmark (docs/performance.md §11): the deployed
 * dispatcher's handler, bundled with the Lambda's esbuild options, in a process the parent holds
 * to Lambda's CPU share (cgroup.ts) and hands each batch over IPC:
 *
 *   { kind: 'invoke', event, timeoutMs }  → { durationMs, cpuMicros, response, spans }
 *   { kind: 'handshakes', ports, rounds } → HandshakeFigures (handshakes.ts)
 */

import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type HandshakeOptions, measureHandshakes } from './handshakes';
import { type RequestSpan, recordSpans } from './phases';

export type ContainerRequest =
  | { kind: 'invoke'; id: number; event: SQSEvent; timeoutMs: number }
  | ({ kind: 'handshakes'; id: number } & HandshakeOptions);

export interface InvokeReply {
  id: number;
  durationMs: number;
  cpuMicros: number;
  response?: SQSBatchResponse | undefined;
  error?: string;
  spans?: RequestSpan[];
}

type Handler = typeof import('../../lambdas/dispatcher/index.js')['handler'];
let handler: Promise<Handler> | undefined;
let invocations = 0;
const spans = recordSpans();

async function invoke(req: Extract<ContainerRequest, { kind: 'invoke' }>): Promise<InvokeReply> {
  // Wired on the first invocation's arrival, as Lambda's init (not billed here either).
  handler ??= import('../../lambdas/dispatcher/index.js').then(async (m) => {
    await m.ready;
    return m.handler;
  });
  const run = await handler;
  spans.begin();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = Date.now() + req.timeoutMs;
  try {
    const response = await run(req.event, {
      getRemainingTimeInMillis: () => deadline - Date.now(),
      awsRequestId: `billed-${++invocations}`,
    });
    const used = process.cpuUsage(cpu);
    return {
      id: req.id,
      durationMs: performance.now() - started,
      cpuMicros: used.user + used.system,
      response: response ?? undefined,
      spans: spans.end(),
    };
  } catch (error) {
    const used = process.cpuUsage(cpu);
    return {
      id: req.id,
      durationMs: performance.now() - started,
      cpuMicros: used.user + used.system,
      error: error instanceof Error ? error.message : String(error),
      spans: spans.end(),
    };
  }
}

process.on('message', (req: ContainerRequest) => {
  const done = (reply: unknown) => process.send?.(reply);
  if (req.kind === 'invoke') void invoke(req).then(done);
  else
    void measureHandshakes(req).then(
      (figures) => done({ id: req.id, figures }),
      (error: unknown) => done({ id: req.id, error: String(error) }),
    );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
