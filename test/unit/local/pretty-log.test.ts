import { healthLogMessage } from '../../../lambdas/core/health-tracker';
import { prettyLog } from '../../../local/pretty-log';

/** The lines local mode prints for these log calls, without colour and without the time. */
function printed(calls: (log: ReturnType<typeof prettyLog>) => void): string[] {
  const lines: string[] = [];
  calls(prettyLog((line) => lines.push(line), false));
  return lines.map((line) => line.replace(/^\d{2}:\d{2}:\d{2}\.\d{3} {2}/, ''));
}

describe("local mode's log", () => {
  const fields = { connectionId: 'con_1', applicationId: 'app_1', consecutiveFailures: 0 };

  it('marks a health transition by the way it went, not by its log level', () => {
    const lines = printed((log) => {
      log.warn(healthLogMessage('connection.failing'), { ...fields, state: 'failing' });
      log.warn(healthLogMessage('connection.disabled'), { ...fields, state: 'disabled' });
      log.warn(healthLogMessage('connection.recovered'), { ...fields, state: 'healthy' });
    });
    expect(lines).toEqual([
      '! connection health: connection.failing  con_1  applicationId=app_1 consecutiveFailures=0 state=failing',
      '✗ connection health: connection.disabled  con_1  applicationId=app_1 consecutiveFailures=0 state=disabled',
      '✓ connection health: connection.recovered  con_1  applicationId=app_1 consecutiveFailures=0 state=healthy',
    ]);
  });

  it('colours a recovery green', () => {
    const lines: string[] = [];
    prettyLog((line) => lines.push(line), true).warn(healthLogMessage('connection.recovered'), fields);
    expect(lines[0]).toContain('\x1b[32m✓ connection health: connection.recovered\x1b[0m');
  });

  it('still marks other warnings with ✗', () => {
    expect(
      printed((log) => log.warn('delivery parked', { deliveryId: 'dlv_1', reason: 'exhausted' })),
    ).toEqual(['✗ delivery parked  dlv_1  reason exhausted']);
  });
});
