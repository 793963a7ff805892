import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { parseHeaders } from '../../../console/headers';
import { parseRoute } from '../../../console/routes';

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
