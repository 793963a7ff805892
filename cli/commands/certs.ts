/**
 * `webhooks certs issue`: a certificate for a receiver on this machine, signed by local mode's
 * CA, which local mode already trusts: no hand-made CA, no NODE_EXTRA_CA_CERTS.
 */

import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { caFiles, readCa } from '../../local/local-ca';
import { readState, stateFilePath } from '../../local/state';
import { issueCertificate } from '../../local/tls';
import { CliError, UsageError } from '../errors';
import { keyValues } from '../format';
import { group, handle, leaf, repeatableOption } from '../program';
import { parseWholeNumber } from '../values';

const DEFAULT_DAYS = 30;
const MAX_DAYS = 365;
const DAY_MS = 86_400_000;
/** The names a receiver on this machine is reached by; the first is the certificate's subject. */
const DEFAULT_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** Local mode's CA: the running instance's, else the one kept next to the default state file. */
function localCaFiles() {
  const path = stateFilePath();
  if (existsSync(path)) {
    try {
      const state = readState(path);
      if (state.caKeyFile) return { certFile: state.caFile, keyFile: state.caKeyFile };
    } catch {
      // Not running: its CA is still on disk next to the state file.
    }
  }
  return caFiles(dirname(path));
}

function issue(): Command {
  const cmd = leaf('issue', {
    summary: "issue a certificate for localhost from local mode's CA (which local mode trusts)",
    usage: '[--out <dir>] [--host <name-or-ip>]… [--days <n>]',
    details: `Writes <dir>/localhost.pem (certificate) and <dir>/localhost-key.pem (private key, mode 0600).
Serve them from your receiver on any port: local mode delivers to any port on localhost, and
trusts this CA in every later npm start (the CA is kept in .local/ next to the state file).
Default hosts: ${DEFAULT_HOSTS.join(', ')}.`,
    examples: ['webhooks --local certs issue --out ./certs'],
  })
    .option('--out <dir>', 'directory to write the certificate and key to (default ./certs)')
    .addOption(
      repeatableOption(
        '--host <name-or-ip>',
        `a name or address it is valid for; repeat for more (default ${DEFAULT_HOSTS.join(', ')})`,
      ),
    )
    .option(
      '--days <n>',
      `how long it is valid (default ${DEFAULT_DAYS}, at most ${MAX_DAYS}; never past the CA's end)`,
    );
  return handle(cmd, async (ctx, { flags }) => {
    const aws = (['stack', 'region', 'profile'] as const).filter((k) => ctx.globals[k] !== undefined);
    if (aws.length) throw new UsageError(`certs is for local mode; --${aws[0]} picks a deployed stack`);
    const days = flags.has('days')
      ? parseWholeNumber(flags.string('days')!, '--days', 1, MAX_DAYS)
      : DEFAULT_DAYS;
    const hosts = flags.strings('host').length ? flags.strings('host') : [...DEFAULT_HOSTS];
    const bad = hosts.find((h) => !/^[A-Za-z0-9.:-]+$/.test(h));
    if (bad) throw new UsageError(`--host: "${bad}" is not a host name or IP address`);
    let ca: ReturnType<typeof readCa>;
    try {
      ca = readCa(localCaFiles());
    } catch (error) {
      throw new CliError((error as Error).message, { cause: error });
    }
    const issued = issueCertificate(ca, hosts, days * DAY_MS);
    const dir = resolve(flags.string('out') ?? 'certs');
    const certFile = join(dir, 'localhost.pem');
    const keyFile = join(dir, 'localhost-key.pem');
    mkdirSync(dir, { recursive: true });
    writeFileSync(keyFile, issued.keyPem, { mode: 0o600 });
    writeFileSync(certFile, issued.certPem);
    const validTo = new Date(new X509Certificate(issued.certPem).validTo).toISOString();
    ctx.printJson({ certFile, keyFile, hosts, validTo });
    const shown = (file: string) => relative(process.cwd(), file) || file;
    ctx.print(`Issued a certificate for ${hosts.join(', ')}, valid until ${validTo},
signed by local mode's CA (local mode trusts it; nothing to install):

${keyValues([
  ['certificate', shown(certFile)],
  ['private key', shown(keyFile)],
])}

Serve it from your receiver on any port, e.g. in Node:
  https.createServer({ cert: readFileSync('${shown(certFile)}'), key: readFileSync('${shown(keyFile)}') }, handler).listen(8443)
Then point a connection at it:
  ${ctx.suggest('connections create --application app_… --name "My receiver" --url https://localhost:8443/webhooks')}`);
  });
}

export function certsCommand(): Command {
  const cmd = group('certs', "certificates for receivers on this machine, from local mode's CA");
  cmd.addCommand(issue());
  return cmd;
}
