/**
 * The Contributor Insights rule and the dashboard's Logs Insights query count the dispatcher's
 * failed attempts by the `connectionId` and `outcome` fields of its log lines
 * (lib/failing-connections.ts). Here the production log adapter writes those lines for a batch
 * where two connections fail and one is delivered: each failed attempt is one line the rule
 * matches, with its connection, and a delivered attempt never matches, even at DEBUG.
 */

import { createDispatcher } from '../../../lambdas/core/dispatch';
import { CONNECTION_ID_FIELD, OUTCOME_FIELD } from '../../../lib/failing-connections';
import { FAILED_OUTCOMES } from '../../../lib/metrics';
import { capturedPowertoolsLog } from '../../support/captured-log';
import { connection, ok, DISPATCHER_OPTIONS as options } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const event = {
  v: 1,
  type: 'event',
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  occurredAt: '2026-11-21T14:53:00.123Z',
  user: { id: 'usr_7' },
  application: { id: 'app_1', name: 'Acme' },
};

/** The log lines the rule's filter keeps: `outcome` one of the failed outcomes, keyed by connection. */
function matched(lines: string[]): Array<{ connectionId: unknown; outcome: unknown }> {
  return lines
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((l) => (FAILED_OUTCOMES as readonly unknown[]).includes(l[OUTCOME_FIELD]))
    .map((l) => ({ connectionId: l[CONNECTION_ID_FIELD], outcome: l[OUTCOME_FIELD] }));
}

async function runBatch(level: 'INFO' | 'DEBUG') {
  const capture = capturedPowertoolsLog(level);
  const ports = memoryPorts([connection('con_a'), connection('con_b'), connection('con_c')], {
    log: capture.log,
    responder: (request) => {
      const host = new URL(request.url).hostname;
      if (host === 'con-a.example.com') return ok(503);
      if (host === 'con-b.example.com') return { kind: 'network', durationMs: 3, error: 'ECONNREFUSED' };
      return ok(200);
    },
  });
  const dispatcher = createDispatcher(ports.deps, options);
  capture.start();
  try {
    await dispatcher.processBatch([{ messageId: 'm1', body: JSON.stringify(event), source: 'ingress' }], {
      remainingMs: () => 90_000,
    });
  } finally {
    capture.stop();
  }
  return capture.lines;
}

describe('failed-attempt log lines, as the failing connections rule reads them', () => {
  it('writes one line per failed attempt with its connection and outcome, and none for the delivered one', async () => {
    const lines = matched(await runBatch('INFO'));
    expect(lines.sort((a, b) => String(a.connectionId).localeCompare(String(b.connectionId)))).toEqual([
      { connectionId: 'con_a', outcome: 'http_error' },
      { connectionId: 'con_b', outcome: 'network_error' },
    ]);
  });

  it('does not count the delivered attempt when DEBUG writes a line for it too', async () => {
    const lines = await runBatch('DEBUG');
    expect(lines.join('')).toContain('"con_c"');
    expect(matched(lines).map((l) => l.connectionId)).not.toContain('con_c');
    expect(matched(lines)).toHaveLength(2);
  });
});
