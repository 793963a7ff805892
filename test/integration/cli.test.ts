/**
 * The operator CLI end to end, driven as a person would: `npm start`'s local mode in one
 * process, our own HTTPS receiver, and `webhooks --local …` run as separate processes whose
 * output and exit codes are checked. Every wait is bounded.
 */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { verifyWebhook, WebhookVerificationError } from '../../lambdas/receiver';
import { LOCAL_CONNECTION_CACHE_TTL_MS } from '../../local/constants';
import { type OutputChild, spawnUntil } from '../support/child';
import { testPki } from '../support/pki';
import { type ReceivedRequest, type Receiver, respond, startReceiver } from '../support/receivers';
import { waitFor } from '../support/wait';

const ROOT = resolve(__dirname, '..', '..');
const READY_TIMEOUT_MS = 60_000;
const CLI_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
/** Local mode caches connections for LOCAL_CONNECTION_CACHE_TTL_MS; leave room for a slow machine. */
const ROTATION_TIMEOUT_MS = 20_000;
const APP = 'app_cli_e2e';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;
let env: NodeJS.ProcessEnv;
let receiver: Receiver;
let local: OutputChild | undefined;

/** The test's environment without the integration project's emulator settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AWS_|WEBHOOKS_)/.test(key) && key !== 'DEBUG') out[key] = value;
  }
  return out;
}

/** Runs `webhooks --local …` as its own process. */
function webhooks(args: string[], options: { input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['cli/webhooks.cjs', '--local', ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`webhooks ${args.join(' ')} did not finish in ${CLI_TIMEOUT_MS} ms\n${stdout}\n${stderr}`),
      );
    }, CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A command that must succeed; fails the test with its output otherwise. */
async function ok(args: string[], options: { input?: string } = {}): Promise<string> {
  const result = await webhooks(args, options);
  if (result.code !== 0) {
    throw new Error(
      `webhooks ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  }
  return result.stdout;
}

/** The one line an error must be: `webhooks: <reason>`, no stack trace. */
function expectOneLineError(result: CliResult, code: number, reason: string | RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stderr).toMatch(/^webhooks: [^\n]+\n$/);
  if (typeof reason === 'string') expect(result.stderr).toBe(`webhooks: ${reason}\n`);
  else expect(result.stderr.slice('webhooks: '.length).trimEnd()).toMatch(reason);
}

function header(request: ReceivedRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The request the receiver got for a user, waiting for it (bounded). */
function requestFor(userId: string, after = 0): Promise<ReceivedRequest> {
  return waitFor(
    `a delivery for ${userId}`,
    () => receiver.requests.slice(after).find((r) => JSON.parse(r.body).user?.id === userId),
    { timeoutMs: 20_000 },
  );
}

function verifies(request: ReceivedRequest, secret: string): boolean {
  try {
    verifyWebhook({ rawBody: request.body, headers: request.headers, secret });
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError && error.code === 'signature_mismatch') return false;
    throw error;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhooks-cli-'));
  const caFile = join(dir, 'test-ca.pem');
  writeFileSync(caFile, testPki().caPem);
  receiver = await startReceiver(respond(200));
  const stateFile = join(dir, 'state.json');
  env = {
    ...cleanEnv(),
    WEBHOOKS_STATE_FILE: stateFile,
    WEBHOOKS_EXTRA_CA_FILE: caFile,
    WEBHOOKS_EXTRA_PORTS: String(receiver.port),
    NO_COLOR: '1',
  };
  local = await spawnUntil('local/start.ts', [], {
    env,
    timeoutMs: READY_TIMEOUT_MS,
    ready: (output) => existsSync(stateFile) && /\bready\b/.test(output),
  });
}, READY_TIMEOUT_MS + 10_000);

afterAll(async () => {
  if (local && local.child.exitCode === null && local.child.signalCode === null) local.child.kill('SIGKILL');
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('webhooks CLI against local mode', () => {
  let connectionId = '';
  let firstSecret = '';
  let secondSecret = '';
  let switchAtMs = 0;
  let publishedDelivery = '';

  it('shows help and exits 0', async () => {
    const result = await webhooks(['connections', 'send-test', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage\n  webhooks connections send-test <connection-id>');
    expect(result.stdout).toContain('$ webhooks connections send-test con_');
  });

  it("refuses an http:// URL with a one-line reason naming the field and local mode's certificates", async () => {
    const result = await webhooks([
      'connections',
      'create',
      '--application',
      APP,
      '--name',
      'Plain',
      '--url',
      'http://example.com/hooks',
    ]);
    expectOneLineError(
      result,
      1,
      "url: must use https:, got http:; serve the receiver over https with a certificate from local mode's CA, which the pipeline trusts: npx webhooks --local certs issue --out ./certs (valid for localhost, 127.0.0.1 and ::1)",
    );
    expect(result.stdout).toBe('');
  });

  it('refuses an unknown flag with a usage hint and exit code 2', async () => {
    const result = await webhooks(['connections', 'create', '--nmae', 'x']);
    expectOneLineError(
      result,
      2,
      'unknown flag --nmae for "webhooks connections create" (did you mean --name?); see: npx webhooks connections create --help',
    );
  });

  it('creates a connection, says where the secret is, and never prints it or the header value', async () => {
    const stdout = await ok([
      'connections',
      'create',
      '--application',
      APP,
      '--name',
      'CLI e2e receiver',
      '--url',
      receiver.url,
      '--header',
      'Authorization: Bearer t0ken:with:colons',
    ]);
    connectionId = /Created connection (con_[A-Za-z0-9_-]+)\./.exec(stdout)?.[1] ?? '';
    expect(connectionId).not.toBe('');
    expect(stdout).toMatch(new RegExp(`url\\s+${receiver.url.replace(/[.]/g, '\\.')}`));
    expect(stdout).toContain('headers      Authorization (values hidden)');
    expect(stdout).toContain(`webhooks --local connections show-secret ${connectionId}`);
    expect(stdout).not.toContain('whsec_');
    expect(stdout).not.toContain('t0ken');
  });

  it('lists and shows the connection', async () => {
    const list = await ok(['connections', 'list', '--application', APP]);
    expect(list.split('\n')[0]).toMatch(
      /^ID\s+APPLICATION\s+NAME\s+METHOD\s+URL\s+ENABLED\s+HEALTH\s+CREATED$/,
    );
    expect(list).toMatch(
      new RegExp(
        `^${connectionId}\\s+${APP}\\s+CLI e2e receiver\\s+POST\\s+https://127\\.0\\.0\\.1:\\d+/hooks\\s+yes\\s+healthy\\s+`,
        'm',
      ),
    );
    const json = JSON.parse(await ok(['connections', 'get', connectionId, '--json']));
    expect(json).toMatchObject({
      connectionId,
      applicationId: APP,
      enabled: true,
      headers: { Authorization: '[hidden]' },
      health: { state: 'healthy', consecutiveFailures: 0 },
    });
    expect(json.health.version).toBeUndefined();
  });

  it('sets a rate limit with --rate-limit N and clears it with --rate-limit none', async () => {
    const set = await ok(['connections', 'update', connectionId, '--rate-limit', '20']);
    expect(set).toMatch(/rate limit\s+20 deliveries\/s/);
    expect(JSON.parse(await ok(['connections', 'get', connectionId, '--json'])).rateLimit).toBe(20);
    const cleared = await ok(['connections', 'update', connectionId, '--rate-limit', 'none']);
    expect(cleared).toMatch(/rate limit\s+none of its own/);
    expect(JSON.parse(await ok(['connections', 'get', connectionId, '--json'])).rateLimit).toBeUndefined();
  });

  it('shows the secret, and only the secret', async () => {
    const stdout = await ok(['connections', 'show-secret', connectionId]);
    expect(stdout).toMatch(/^whsec_[A-Za-z0-9+/=]+\n$/);
    firstSecret = stdout.trim();
  });

  it('sends a signed test delivery and reports status, latency and response', async () => {
    const before = receiver.requests.length;
    const stdout = await ok(['connections', 'send-test', connectionId]);
    expect(stdout).toContain(`Test delivery to ${connectionId}: delivered`);
    expect(stdout).toMatch(/outcome\s+delivered/);
    expect(stdout).toMatch(/status\s+200/);
    expect(stdout).toMatch(/latency\s+\d+ ms/);
    expect(stdout).toContain('response  {"received":true}');
    const [request] = receiver.requests.slice(before);
    expect(request).toBeDefined();
    expect(verifies(request!, firstSecret)).toBe(true);
    expect(JSON.parse(request!.body).user.metadata.test).toBe(true);
    expect(header(request!, 'Authorization')).toBe('Bearer t0ken:with:colons');
  });

  it('exits 1 with the reason when the test delivery is refused', async () => {
    receiver.behave(respond(503, 'maintenance'));
    try {
      const result = await webhooks(['connections', 'send-test', connectionId]);
      expectOneLineError(result, 1, `test delivery to ${connectionId} failed: HTTP 503 (not 2xx)`);
      expect(result.stdout).toContain('FAILED');
      expect(result.stdout).toMatch(/response\s+maintenance/);
    } finally {
      receiver.behave(respond(200));
    }
  });

  it('publishes an event that arrives signed, and prints its event id', async () => {
    const stdout = await ok([
      'publish',
      '--application',
      APP,
      '--application-name',
      'CLI e2e',
      '--user-json',
      '{"id":"usr_cli_1","email":"ada@example.com","name":"Ada Lovelace"}',
    ]);
    const eventId = /Published event (evt_[A-Za-z0-9]+) /.exec(stdout)?.[1];
    expect(eventId).toBeDefined();
    expect(stdout).toContain(`It goes to ${connectionId}.`);
    const request = await requestFor('usr_cli_1');
    expect(verifies(request, firstSecret)).toBe(true);
    expect(JSON.parse(request.body).application).toEqual({ id: APP, name: 'CLI e2e' });
    publishedDelivery = header(request, 'X-Service-Delivery')!;
    expect(publishedDelivery).toMatch(new RegExp(`^dlv_\\w{26}_${connectionId}$`));
  });

  it('lists the attempts, newest first, as a table and as JSON', async () => {
    // The dispatcher logs the attempt after the receiver answers: wait for it (bounded).
    const json = await waitFor(
      'the published delivery in the attempt log',
      async () => {
        const attempts = JSON.parse(
          await ok(['attempts', 'list', '--connection', connectionId, '--json']),
        ) as Array<{
          deliveryId: string;
          outcome: string;
          test?: boolean;
        }>;
        return attempts.some((a) => a.deliveryId === publishedDelivery) && attempts;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(json.filter((a) => a.test)).toHaveLength(2);
    const table = await ok(['attempts', 'list', '--connection', connectionId, '--since', '10m']);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(
      /^REQUESTED\s+DELIVERY\s+USER\s+EVENT\s+#\s+OUTCOME\s+STATUS\s+LATENCY\s+NEXT\s+RESPONSE \/ ERROR$/,
    );
    expect(table).toMatch(
      new RegExp(
        `\\((just now|\\d+s ago)\\)\\s+${publishedDelivery}\\s+usr_\\S+\\s+evt_\\S+\\s+1\\s+delivered\\s+200\\s+\\d+ ms\\s+done`,
      ),
    );
    expect(table).toMatch(/http_error\s+503\s+\d+ ms\s+test, not retried\s+maintenance/);
    expect(table).toContain('3 attempts, newest attempt first.');
    const failed = await ok(['attempts', 'list', '--connection', connectionId, '--failed']);
    expect(failed).not.toMatch(/\bdelivered\b/);
    const one = await ok(['attempts', 'get', publishedDelivery]);
    expect(one).toMatch(/state\s+delivered on attempt 1/);
    expect(one).toMatch(/user\s+usr_cli_1/);
  });

  it('names the application as its last event did in a test delivery and a publish without a name', async () => {
    const before = receiver.requests.length;
    await ok(['connections', 'send-test', connectionId]);
    const [test] = receiver.requests.slice(before);
    expect(JSON.parse(test!.body).application).toEqual({ id: APP, name: 'CLI e2e' });
    const published = await webhooks([
      'publish',
      '--application',
      APP,
      '--user-json',
      '{"id":"usr_cli_app_name"}',
    ]);
    expect(published.code).toBe(0);
    expect(published.stderr).toContain(`Application name: "CLI e2e", the name ${APP}'s events last carried`);
    expect(JSON.parse((await requestFor('usr_cli_app_name', before)).body).application).toEqual({
      id: APP,
      name: 'CLI e2e',
    });
  });

  it('says a delivered delivery is not parked, and how to send it again, when asked to retry it', async () => {
    const result = await webhooks(['attempts', 'retry', publishedDelivery]);
    expectOneLineError(
      result,
      1,
      `${publishedDelivery} is not parked, so there is nothing to retry (attempts retry sends parked deliveries only): delivered on attempt 1. To send it again anyway, as its next attempt: npx webhooks --local attempts resend ${publishedDelivery}`,
    );
  });

  it('rotates the secret, prints the new one, its switch time and the advice to accept both', async () => {
    const stdout = await ok(['connections', 'rotate-secret', connectionId, '--switch-after', '2']);
    secondSecret = /^\s+(whsec_\S+)$/m.exec(stdout)?.[1] ?? '';
    expect(secondSecret).toMatch(/^whsec_/);
    expect(secondSecret).not.toBe(firstSecret);
    switchAtMs = Date.parse(/signing from (\S+)/.exec(stdout)?.[1] ?? '');
    expect(switchAtMs).toBeGreaterThan(Date.now());
    expect(stdout).toContain('Have the receiver accept both now');
    // Until the switch, show-secret prints the secret that signs now, and the next one on stderr.
    const shown = await webhooks(['connections', 'show-secret', connectionId]);
    expect(shown.stdout.trim()).toBe(firstSecret);
    expect(shown.stderr).toContain(`Next secret, signing from ${new Date(switchAtMs).toISOString()}`);
    expect(shown.stderr).toContain(secondSecret);
  });

  it('signs deliveries with the old secret until the switch time, and with the new one after it', async () => {
    const deadline = switchAtMs + ROTATION_TIMEOUT_MS;
    for (let n = 1; ; n++) {
      const userId = `usr_cli_rot_${n}`;
      const before = receiver.requests.length;
      await ok(['publish', '--application', APP, '--user-json', JSON.stringify({ id: userId })]);
      const request = await requestFor(userId, before);
      const signedAt = Number(request.headers['x-service-timestamp']);
      if (signedAt >= switchAtMs) {
        expect(verifies(request, secondSecret)).toBe(true);
        expect(verifies(request, firstSecret)).toBe(false);
        break;
      }
      expect(verifies(request, firstSecret)).toBe(true);
      if (Date.now() > deadline)
        throw new Error(`no delivery after the switch within ${ROTATION_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await ok(['connections', 'show-secret', connectionId])).trim()).toBe(secondSecret);
  });

  it('parks a delivery to a disabled connection, lists it, and recovers it after enabling, once', async () => {
    await ok(['connections', 'disable', connectionId]);
    // As the command says, the dispatcher sees the change within its connection cache time: the
    // test before this one just had a delivery read the connection, so wait that time out.
    await new Promise((r) => setTimeout(r, LOCAL_CONNECTION_CACHE_TTL_MS + 500));
    const eventFile = join(dir, 'event.json');
    writeFileSync(
      eventFile,
      JSON.stringify({
        user: { id: 'usr_cli_parked' },
        application: { id: APP, name: 'CLI e2e' },
        connectionIds: [connectionId],
      }),
    );
    await ok(['publish', '--file', eventFile]);
    const deliveryId = await waitFor(
      'the delivery to the disabled connection parked',
      async () => {
        // A disabled connection is never sent to: fail at once, and say so, if it was.
        const sent = receiver.requests.find((r) => JSON.parse(r.body).user?.id === 'usr_cli_parked');
        if (sent)
          throw new Error(`delivered to a disabled connection: ${header(sent, 'X-Service-Delivery')}`);
        const page = JSON.parse(await ok(['connections', 'parked', connectionId, '--json'])) as {
          data: Array<{ deliveryId: string; reason: string }>;
        };
        return page.data.find((d) => d.reason === 'connection_disabled')?.deliveryId;
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    const list = await ok(['connections', 'parked', connectionId]);
    expect(list).toMatch(new RegExp(`${deliveryId}\\s+connection_disabled\\s+1\\s+`));
    expect(list).toContain(`connections recover ${connectionId}`);

    const enabled = await ok(['connections', 'enable', connectionId]);
    expect(enabled).toContain('It has parked deliveries');
    const before = receiver.requests.length;
    const recovered = await ok(['connections', 'recover', connectionId, '--since', '1h']);
    expect(recovered).toMatch(/^Re-queued 1 parked delivery of /);
    const request = await requestFor('usr_cli_parked', before);
    expect(header(request, 'X-Service-Delivery')).toBe(deliveryId);
    expect(header(request, 'X-Service-Attempt')).toBe('2');
    expect(verifies(request, secondSecret)).toBe(true);
    expect(await ok(['connections', 'recover', connectionId])).toMatch(/^Nothing to recover/);

    // Recovered, it is not parked any more: the error says so, and how to send it again.
    const again = await webhooks(['attempts', 'retry', deliveryId]);
    expectOneLineError(
      again,
      1,
      new RegExp(
        `^${deliveryId} is not parked, so there is nothing to retry .*npx webhooks --local attempts resend ${deliveryId}$`,
      ),
    );
  });

  it('shows stats after known deliveries: attempts by outcome, the failing connection first, parked and DLQ counts', async () => {
    interface Stats {
      source: string;
      attempts: { total: number; byOutcome: Record<string, number> };
      topFailing: Array<{ connectionId: string; failed: number; attempts: number }>;
      queues: Record<
        'ingress' | 'retry' | 'deadLetter',
        { visible: number; delayed: number; inFlight: number; oldestAgeSeconds: number | null }
      >;
      dlqDepth: number;
      parked: number;
    }
    // A second connection whose receiver path always answers 503: 4 attempts, then parked.
    receiver.behave((req, res) => {
      if (req.path.startsWith('/failing')) res.writeHead(503).end('down for maintenance');
      else respond(200)(req, res, 0);
    });
    const created = await ok([
      'connections',
      'create',
      '--application',
      APP,
      '--name',
      'CLI e2e failing',
      '--url',
      `https://localhost:${receiver.port}/failing`,
    ]);
    const failingId = /Created connection (con_[A-Za-z0-9_-]+)\./.exec(created)?.[1] ?? '';
    expect(failingId).not.toBe('');
    const before = JSON.parse(await ok(['stats', '--since', '1h', '--json'])) as Stats;
    await ok([
      'publish',
      '--application',
      APP,
      '--user-json',
      '{"id":"usr_cli_stats"}',
      '--connection',
      failingId,
    ]);
    const stats = await waitFor(
      'the failing delivery parked after its 4 attempts',
      async () => {
        const s = JSON.parse(await ok(['stats', '--since', '1h', '--json'])) as Stats;
        return s.parked === before.parked + 1 && s.topFailing[0]?.failed === 4 ? s : undefined;
      },
      { timeoutMs: 40_000, intervalMs: 1_000 },
    );
    // The 4 failed attempts of the one delivery, and nothing else failed meanwhile.
    expect(stats.topFailing[0]).toEqual({ connectionId: failingId, failed: 4, attempts: 4 });
    expect(before.topFailing.map((c) => c.connectionId)).not.toContain(failingId);
    expect(stats.attempts.byOutcome.http_error! - before.attempts.byOutcome.http_error!).toBe(4);
    expect(stats.attempts.total - before.attempts.total).toBe(4);
    // The delivery parked for a disabled connection earlier (recovered since) is in the window
    // too: a refusal, outcome `rejected`.
    expect(stats.attempts.byOutcome.rejected).toBeGreaterThanOrEqual(1);
    expect(stats.attempts.total).toBe(Object.values(stats.attempts.byOutcome).reduce((a, b) => a + b, 0));
    expect(stats.source).toBe('stores');
    expect(stats.dlqDepth).toBe(0);
    // The parked delivery's recovery check waits on the retry queue, delayed (the first after 1 min).
    expect(stats.queues.retry).toMatchObject({ visible: 0, delayed: 1, inFlight: 0 });
    // Local mode reads the oldest message's age from the emulator: 0 on an empty queue.
    expect(stats.queues.deadLetter).toEqual({ visible: 0, delayed: 0, inFlight: 0, oldestAgeSeconds: 0 });

    const text = await ok(['stats', '--since', '1h']);
    expect(text).toMatch(/^Attempts requested from \S+ to \S+: \d+\n/);
    expect(text).toMatch(new RegExp(`http_error\\s+${stats.attempts.byOutcome.http_error}\\s+`));
    expect(text).toMatch(new RegExp(`${failingId}\\s+4\\s+4`));
    expect(text).toMatch(/dead-letter queue\s+0 messages/);
    expect(text).toMatch(new RegExp(`parked\\s+${stats.parked} deliver`));

    const bad = await webhooks(['stats', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since: must be an ISO 8601 time with a zone');
    // The windows the API's stats route refuses, refused in its words: none is a window that ends now.
    for (const since of ['2999-01-01T00:00:00Z', '99999999d']) {
      const refused = await webhooks(['stats', '--since', since]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
    }
    await ok(['connections', 'delete', failingId, '--yes']);
  });

  it('publishes to the connection --connection names, and says how to follow it', async () => {
    const stdout = await ok([
      'publish',
      '--application',
      APP,
      '--user-json',
      '{"id":"usr_cli_named"}',
      '--connection',
      connectionId,
    ]);
    expect(stdout).toContain(`It goes to ${connectionId}. Follow it with:`);
    expect(stdout).toContain(`attempts list --connection ${connectionId} --since 5m`);
    const request = await requestFor('usr_cli_named');
    expect(verifies(request, secondSecret)).toBe(true);
    expect(header(request, 'X-Service-Delivery')).toMatch(new RegExp(`_${connectionId}$`));
  });

  it("issues a localhost certificate from local mode's CA that a receiver on a new port serves, with no restart", async () => {
    const out = join(dir, 'certs');
    const stdout = await ok(['certs', 'issue', '--out', out]);
    expect(stdout).toContain('Issued a certificate for localhost, 127.0.0.1, ::1');
    const pki = {
      caPem: '',
      certPem: readFileSync(join(out, 'localhost.pem'), 'utf8'),
      keyPem: readFileSync(join(out, 'localhost-key.pem'), 'utf8'),
    };
    const own = await startReceiver(respond(200), pki);
    try {
      const created = JSON.parse(
        await ok([
          'connections',
          'create',
          '--application',
          APP,
          '--name',
          'Own receiver',
          '--url',
          `https://localhost:${own.port}/hooks`,
          '--json',
        ]),
      ) as { connectionId: string };
      const sent = await ok(['connections', 'send-test', created.connectionId]);
      expect(sent).toContain(`Test delivery to ${created.connectionId}: delivered`);
      expect(own.requests).toHaveLength(1);
      await ok(['connections', 'delete', created.connectionId, '--yes']);
    } finally {
      await own.close();
    }
  });

  it('deletes the connection and its secret, only when confirmed', async () => {
    // No terminal to ask on (stdin is a pipe here, as in CI): refused without --yes.
    const refused = await webhooks(['connections', 'delete', connectionId]);
    expectOneLineError(refused, 2, /^not deleting con_\w+ without confirmation .*--yes; see: /);
    await ok(['connections', 'get', connectionId]);
    const stdout = await ok(['connections', 'delete', connectionId, '--yes']);
    expect(stdout).toContain(`Deleted connection ${connectionId} (CLI e2e receiver) and its signing secret.`);
    expectOneLineError(
      await webhooks(['connections', 'get', connectionId]),
      1,
      `connection ${connectionId} does not exist`,
    );
    expectOneLineError(
      await webhooks(['connections', 'show-secret', connectionId]),
      1,
      `connection ${connectionId} does not exist`,
    );
  });

  it('stops local mode cleanly on SIGINT (exit code 0)', async () => {
    local!.child.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      local!.exitCode,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`local mode did not stop in ${STOP_TIMEOUT_MS} ms\n${local!.output()}`)),
          STOP_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    expect(code).toBe(0);
    const after = await webhooks(['connections', 'list']);
    expectOneLineError(
      after,
      1,
      /^local mode is not running \(no .*state\.json\); start it with: npm start$/,
    );
  });
});
