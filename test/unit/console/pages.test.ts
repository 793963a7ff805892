import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { deliveryCreatedAt } from '../../../console/format';
import { parseHeaders } from '../../../console/headers';
import { href, parseRoute } from '../../../console/routes';
import { searchTarget } from '../../../console/search';
import { deliveryIdFor } from '../../../lambdas/core/ids';

const CONSOLE = resolve(__dirname, '..', '..', '..', 'console');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('console pages', () => {
  it('routes fragments to pages', () => {
    expect(parseRoute('')).toEqual({ page: 'connections' });
    expect(parseRoute('#/connections/new')).toEqual({ page: 'new-connection' });
    expect(parseRoute('#/connections/con_1')).toEqual({ page: 'connection', connectionId: 'con_1' });
    expect(parseRoute('#/deliveries/dlv_1?connection=con_1')).toEqual({
      page: 'delivery',
      deliveryId: 'dlv_1',
      connectionId: 'con_1',
    });
    expect(parseRoute('#/elsewhere').page).toBe('not-found');
    expect(parseRoute('#/deliveries')).toEqual({ page: 'deliveries' });
    expect(parseRoute('#/deliveries?user=usr_101')).toEqual({ page: 'deliveries', userId: 'usr_101' });
    expect(parseRoute(href.deliveries({ eventId: 'evt_1', connectionId: 'con_1' }))).toEqual({
      page: 'deliveries',
      eventId: 'evt_1',
      connectionId: 'con_1',
    });
  });

  it('sends a search to the delivery, or to the event’s or user’s deliveries, and names what it cannot read', () => {
    const deliveryId = 'dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_1';
    expect(searchTarget(` ${deliveryId} `)).toEqual({ to: href.delivery(deliveryId) });
    expect(searchTarget('evt_9')).toEqual({ to: '#/deliveries?event=evt_9' });
    expect(searchTarget('usr_101')).toEqual({ to: '#/deliveries?user=usr_101' });
    expect(searchTarget('101')).toEqual({ problem: expect.stringContaining('Not an id this console knows') });
  });

  it('reads when a delivery was created from its id (the order the attempt log is in)', () => {
    const at = Date.parse('2026-11-21T14:03:16.387Z');
    expect(deliveryCreatedAt(deliveryIdFor('evt_1', 'con_1', at))).toBe(new Date(at).toISOString());
    expect(deliveryCreatedAt('nope')).toBeUndefined();
  });

  it('checks the Headers field is a JSON object of strings before sending', () => {
    expect(parseHeaders('')).toEqual({ headers: {} });
    expect(parseHeaders('{"X-Team":"crm"}')).toEqual({ headers: { 'X-Team': 'crm' } });
    expect(parseHeaders('{"X-Team":')).toMatchObject({
      error: expect.stringMatching(/^Headers is not valid JSON/),
    });
    expect(parseHeaders('["a"]')).toMatchObject({ error: expect.stringMatching(/JSON object/) });
    expect(parseHeaders('{"X-N": 1}')).toMatchObject({ error: 'Header "X-N" must have a string value' });
  });

  it('never renders text as HTML: no innerHTML, dangerouslySetInnerHTML or insertAdjacentHTML', () => {
    const offenders = files(CONSOLE)
      .filter((f) => /\.(tsx?|html)$/.test(f))
      .filter((f) =>
        /innerHTML|dangerouslySetInnerHTML|insertAdjacentHTML|outerHTML|document\.write/.test(
          readFileSync(f, 'utf8'),
        ),
      )
      .map((f) => relative(CONSOLE, f));
    expect(offenders).toEqual([]);
  });

  it('has no inline script or style in index.html (the CSP forbids them)', () => {
    const html = readFileSync(join(CONSOLE, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('type-checks (the console has its own tsconfig: DOM and Preact JSX)', () => {
    const configPath = join(CONSOLE, 'tsconfig.json');
    const config = ts.getParsedCommandLineOfConfigFile(
      configPath,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    const program = ts.createProgram(config!.fileNames, config!.options);
    const messages = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? relative(CONSOLE, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
      );
    expect(messages).toEqual([]);
  }, 60_000);
});
