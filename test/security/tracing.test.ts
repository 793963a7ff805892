/**
 * Tracing on (docs/design.md §10 "Traces") sends nothing of a trace to receivers: the real X-Ray
 * tracing adapter, built as the dispatcher builds it, in a Lambda-like process with a sampled
 * trace, around a real delivery over HTTPS. The receiver gets no trace header; the X-Ray daemon (a
 * UDP socket here) gets one subsegment per attempt, annotated with ids and the outcome, and none of
 * the secret, the custom header value, the URL's query or the body.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createDispatcher } from '../../lambdas/core/dispatch';
import type { Tracing } from '../../lambdas/core/ports';
import { connection, HEADER_VALUE, SECRET } from '../support/fixtures';
import { memoryPorts } from '../support/memory';
import { type Receiver, startReceiver } from '../support/receivers';
import { senderFor } from './helpers';

const ROOT = '1-6925a3c0-0123456789abcdef01234567';
const TRACE_HEADERS = /^(x-amzn-trace-id|traceparent|tracestate|b3|x-b3-.*|uber-trace-id)$/i;

let daemon: Socket;
const documents: Array<Record<string, unknown>> = [];
let receiver: Receiver;
let tracing: Tracing;

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (msg) => {
    // The daemon protocol: a JSON header line, then the segment document.
    const [, body] = msg.toString('utf8').split('\n');
    if (body) documents.push(JSON.parse(body) as Record<string, unknown>);
  });
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // What Lambda's active tracing gives a function: read by the X-Ray SDK when it loads.
  Object.assign(process.env, {
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: 'Webhooks-Dispatcher',
    _X_AMZN_TRACE_ID: `Root=${ROOT};Parent=53995c3f42cd8ad8;Sampled=1`,
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  });
  // Required only now, so that the X-Ray SDK reads the environment above as it loads.
  const { xrayTracing } =
    require('../../lambdas/adapters/tracing/xray') as typeof import('../../lambdas/adapters/tracing/xray.js');
  tracing = xrayTracing();
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver.close();
  daemon.close();
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a traced delivery', () => {
  it('sends no trace header to the receiver, and one annotated attempt subsegment to X-Ray', async () => {
    const url = `${receiver.url}?token=query-secret-value`;
    const f = memoryPorts([connection('con_a', { url })], {
      sender: senderFor({ allowedPorts: [receiver.port], allowLoopback: true }),
    });
    const dispatcher = createDispatcher(
      { ...f.deps, tracing },
      {
        headerPrefix: 'X-Service',
        attemptTtlDays: 30,
        concurrency: 1,
        egress: { allowedPorts: [receiver.port], allowLoopback: true },
      },
    );
    const event = {
      v: 1,
      type: 'event',
      eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
      event: 'user.identified',
      occurredAt: '2026-11-21T14:53:00.123Z',
      user: { id: 'usr_7', email: 'grace@example.com' },
      application: { id: 'app_1', name: 'Acme' },
    };
    await dispatcher.processBatch([{ messageId: 'm1', body: JSON.stringify(event), source: 'ingress' }], {
      remainingMs: () => 90_000,
    });

    expect(receiver.requests).toHaveLength(1);
    const sent = Object.keys(receiver.requests[0]!.headers);
    expect(sent.filter((h) => TRACE_HEADERS.test(h))).toEqual([]);
    expect(sent).toContain('x-service-signature'); // the request itself is whole

    const record = f.state.records[0]!;
    expect(record).toMatchObject({ outcome: 'delivered', traceId: ROOT });

    await until(() => documents.some((d) => d.name === 'webhook attempt'));
    const spans = documents.filter((d) => d.name === 'webhook attempt');
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      trace_id: ROOT,
      annotations: { connectionId: 'con_a', deliveryId: record.deliveryId, attempt: 1, outcome: 'delivered' },
    });
    const text = JSON.stringify(documents);
    for (const secret of [SECRET, HEADER_VALUE, 'query-secret-value', 'grace@example.com']) {
      expect(text).not.toContain(secret);
    }
  });
});
