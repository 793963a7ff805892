import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { GlobalFlags } from '../../../cli/context';
import { type Io, packageVersion } from '../../../cli/main';
import { ValidationError } from '../../../lambdas/core/errors';
import { NotFoundError, type WebhookManagement } from '../../../lambdas/management';
import { runCli } from '../../support/cli-run';

interface Call {
  method: string;
  args: unknown[];
  globals: GlobalFlags;
}

const CONNECTION = {
  connectionId: 'con_1',
  applicationId: 'app_1',
  type: 'webhook',
  name: 'Acme',
  url: 'https://a.example/hooks',
  method: 'POST',
  headers: {},
  enabled: true,
  secretArn: 'arn:x',
  createdAt: '2026-11-21T15:00:00.000Z',
  updatedAt: '2026-11-21T15:00:00.000Z',
};

/** A stand-in management API that records what the command asked for. */
function recorder(calls: Call[], globals: GlobalFlags): WebhookManagement {
  const record =
    (method: string, result: unknown = undefined) =>
    async (...args: unknown[]) => {
      calls.push({ method, args, globals });
      return result;
    };
  return {
    connections: {
      list: record('connections.list', []),
      get: record('connections.get', CONNECTION),
      create: record('connections.create', CONNECTION),
      delete: record('connections.delete', CONNECTION),
      raiseAttemptShards: record('connections.raiseAttemptShards', {
        ...CONNECTION,
        attemptShards: [
          { count: 1, from: '1970-01-01T00:00:00.000Z' },
          { count: 4, from: '2026-11-21T15:01:00.000Z' },
        ],
      }),
    },
    publisher: { publishUserIdentified: record('publish', { eventId: 'evt_1', messageId: 'm1' }) },
    deadLetters: { redrive: record('redrive', { redriven: [], skipped: [], notFound: [] }) },
    attempts: { finalFailures: record('failures', []), list: record('attempts.list', []) },
    deliveries: { failuresNow: record('deliveries.failuresNow', []) },
  } as unknown as WebhookManagement;
}

async function cli(argv: string[], extra: Partial<Io> = {}) {
  const calls: Call[] = [];
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const result = await runCli(argv, { stdin, open: async (globals) => recorder(calls, globals), ...extra });
  return { ...result, calls };
}

describe('the command line', () => {
  it('finds the command, its flags and positionals', async () => {
    const { code, calls } = await cli(['connections', 'get', 'con_1']);
    expect(code).toBe(0);
    expect(calls).toEqual([
      { method: 'connections.get', args: ['con_1'], globals: { local: false, json: false } },
    ]);
  });

  it("shows and raises a connection's attempt shards, a count from 2 to 64 only", async () => {
    const shown = await cli(['connections', 'shards', 'con_1']);
    expect(shown.code).toBe(0);
    expect(shown.calls.map((c) => c.method)).toEqual(['connections.get']);
    expect(shown.stdout).toMatch(/attempt shards\s+1/);
    const raised = await cli(['connections', 'shards', 'con_1', '--raise-to', '4']);
    expect(raised.code).toBe(0);
    expect(raised.calls).toEqual([
      expect.objectContaining({ method: 'connections.raiseAttemptShards', args: ['con_1', 4] }),
    ]);
    expect(raised.stdout).toContain('deliveries created from 2026-11-21T15:01:00.000Z');
    expect(raised.stdout).toMatch(/history\s+1 from the start; 4 from 2026-11-21T15:01:00.000Z/);
    for (const bad of ['1', '65', 'four']) {
      const refused = await cli(['connections', 'shards', 'con_1', '--raise-to', bad]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('--raise-to: expected a whole number from 2 to 64');
      expect(refused.calls).toEqual([]);
    }
  });

  it('names --raise-to when the library refuses a count that does not raise', async () => {
    const lowered = await cli(['connections', 'shards', 'con_1', '--raise-to', '4'], {
      open: async () =>
        ({
          connections: {
            raiseAttemptShards: async () => {
              throw new ValidationError(
                'attemptShards',
                'can only be raised: the connection has 8 shards, got 4',
              );
            },
          },
        }) as unknown as WebhookManagement,
    });
    expect(lowered.code).toBe(1);
    expect(lowered.stderr).toContain(
      'webhooks: --raise-to: can only be raised: the connection has 8 shards, got 4',
    );
  });

  it('accepts global flags before, between and after the command words', async () => {
    const { calls } = await cli(['--local', 'connections', '--json', 'list', '--application', 'app_1']);
    expect(calls[0]).toMatchObject({
      method: 'connections.list',
      args: [{ applicationId: 'app_1' }],
      globals: { local: true, json: true },
    });
  });

  it('does not take the value of --stack, --region or --profile for a command word', async () => {
    const { code, calls } = await cli([
      '--stack',
      'Staging',
      '--region=eu-west-1',
      '--profile',
      'ops',
      'attempts',
      'failures',
    ]);
    expect(code).toBe(0);
    expect(calls[0]!.globals).toMatchObject({ stack: 'Staging', region: 'eu-west-1', profile: 'ops' });
  });

  it('collects repeated --header flags in order', async () => {
    const { calls } = await cli([
      'connections',
      'create',
      '--application',
      'app_1',
      '--name',
      'n',
      '--url',
      'https://a.example',
      '--header',
      'Authorization: Bearer x',
      '--header',
      'X-Tenant: acme',
    ]);
    expect(calls[0]!.args[0]).toMatchObject({ headers: { Authorization: 'Bearer x', 'X-Tenant': 'acme' } });
  });

  it('runs a command without subcommands (publish)', async () => {
    const { code, calls } = await cli(['publish', '--application', 'app_1', '--user-json', '{"id":"usr_1"}']);
    expect(code).toBe(0);
    expect(calls[0]).toMatchObject({ method: 'publish', args: [{ user: { id: 'usr_1' } }] });
  });

  it('takes any number of delivery ids for dlq redrive', async () => {
    const ids = ['dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_1', 'dlv_01JD8X4AZ3K5M7N9P1Q3R5S7TA_con_1'];
    const { calls } = await cli(['dlq', 'redrive', ...ids]);
    expect(calls.find((c) => c.method === 'redrive')!.args[0]).toMatchObject({ deliveryIds: ids });
  });

  it('shows the list of commands for no arguments, --help and -h', async () => {
    for (const argv of [[], ['--help'], ['-h']]) {
      const result = await cli(argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('connections create');
      expect(result.stdout).toContain('attempts tail');
    }
  });

  it('prints its version with --version', async () => {
    const result = await cli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${packageVersion()}\n` });
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('shows a group help and a command help, with usage, flags and an example', async () => {
    expect((await cli(['connections', '--help'])).stdout).toContain('rotate-secret');
    const command = await cli(['attempts', 'list', '--help', '--bogus']);
    expect(command.code).toBe(0);
    expect(command.stdout).toContain('Usage\n  webhooks attempts list --connection <connection-id>');
    expect(command.stdout).toContain('--since <when>');
    expect(command.stdout).toContain('--local');
    expect(command.stdout).toContain('-h, --help');
    expect(command.stdout).toMatch(/Example\n {2}\$ webhooks attempts list/);
  });

  it('has help with an example on every command', async () => {
    const list = (await cli(['--help'])).stdout;
    const names = [...list.matchAll(/^ {2}((?:connections|attempts|dlq) [a-z-]+|publish)\b/gm)].map(
      (m) => m[1]!,
    );
    expect(names.length).toBeGreaterThanOrEqual(16);
    for (const name of names) {
      expect((await cli([...name.split(' '), '--help'])).stdout).toContain(`$ webhooks ${name}`);
    }
  });

  it.each([
    [
      ['nope'],
      /^unknown command "nope"; commands: connections, publish, attempts, dlq/,
      'npx webhooks --help',
    ],
    [
      ['conections', 'list'],
      /^unknown command "conections" \(did you mean connections\?\); commands: connections, /,
      'npx webhooks --help',
    ],
    [['connections'], /^"connections" needs a subcommand: create, list/, 'npx webhooks connections --help'],
    [
      ['connections', 'frob'],
      /^unknown command "connections frob"; subcommands: create, list, get, /,
      'npx webhooks connections --help',
    ],
    [
      ['attempts', 'tial'],
      /^unknown command "attempts tial" \(did you mean tail\?\); subcommands: list, get, find, failures, tail, retry, resend$/,
      'npx webhooks attempts --help',
    ],
    [
      ['connections', 'create', '--nme', 'x'],
      /^unknown flag --nme for "webhooks connections create" \(did you mean --name\?\)$/,
      'npx webhooks connections create --help',
    ],
    [['connections', 'create', '--url'], /^--url needs a value$/, 'npx webhooks connections create --help'],
    [
      ['connections', 'list', '--json=yes'],
      /^--json takes no value$/,
      'npx webhooks connections list --help',
    ],
    [['connections', 'get'], /^missing <connection-id>$/, 'npx webhooks connections get --help'],
    [
      ['connections', 'get', 'a', 'b'],
      /^unexpected argument "b" after <connection-id>$/,
      'npx webhooks connections get --help',
    ],
    [['dlq', 'list', 'extra'], /^unexpected argument "extra"$/, 'npx webhooks dlq list --help'],
    [
      ['--local', 'dlq', 'list', '--stack', 'X'],
      /^--local cannot be combined with --stack/,
      'npx webhooks dlq list --help',
    ],
    [['--json'], /^which command\?/, 'npx webhooks --help'],
  ])('refuses %j with a one-line reason and where help is', async (argv, message, hint) => {
    const result = await cli(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    if (argv.includes('--json')) {
      const error = JSON.parse(result.stderr).error;
      expect(error.message).toMatch(message);
      expect(error.hint).toBe(hint);
      return;
    }
    expect(result.stderr).toMatch(/^webhooks: [^\n]+\n$/);
    const [reason, where] = result.stderr.slice('webhooks: '.length).trimEnd().split('; see: ');
    expect(reason).toMatch(message);
    expect(where).toBe(hint);
  });

  it('with --json, writes an error as one JSON object on stderr', async () => {
    const result = await cli(['connections', 'get', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        type: 'UsageError',
        message: 'missing <connection-id>',
        hint: 'npx webhooks connections get --help',
        exitCode: 2,
      },
    });
  });
});

describe('connections delete', () => {
  it('refuses without --yes when there is no terminal to ask on, and deletes nothing', async () => {
    const result = await cli(['--local', 'connections', 'delete', 'con_1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not deleting con_1 without confirmation');
    expect(result.stderr).toContain('npx webhooks --local connections delete con_1 --yes');
    expect(result.calls.map((c) => c.method)).not.toContain('connections.delete');
  });

  it('deletes with --yes', async () => {
    const result = await cli(['connections', 'delete', 'con_1', '--yes']);
    expect(result.code).toBe(0);
    expect(result.calls.map((c) => c.method)).toContain('connections.delete');
  });

  it.each([
    ['y\n', true],
    ['yes\n', true],
    ['\n', false],
    ['no\n', false],
  ])('asks on a terminal; answer %j deletes: %s', async (answer, deletes) => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const pending = cli(['connections', 'delete', 'con_1'], { stdin });
    setImmediate(() => stdin.write(answer));
    const result = await pending;
    expect(result.stderr).toContain(
      'Delete connection con_1 (Acme) and its signing secret? This cannot be undone. [y/N]',
    );
    expect(result.code).toBe(deletes ? 0 : 1);
    expect(result.calls.map((c) => c.method).includes('connections.delete')).toBe(deletes);
  });
});

describe('attempts tail', () => {
  const attempt: { requestedAt: string; deliveryId: string } & Record<string, unknown> = {
    deliveryId: 'dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_1',
    connectionId: 'con_1',
    attempt: 1,
    outcome: 'delivered',
    statusCode: 200,
    durationMs: 12,
    requestedAt: new Date().toISOString(),
    final: true,
  };

  it('prints each new attempt once, with its full delivery id, until interrupted', async () => {
    attempt.requestedAt = new Date().toISOString();
    const stop = new AbortController();
    let polls = 0;
    const management = {
      connections: { list: async () => [CONNECTION] },
      attempts: {
        // As the attempt log does: only attempts requested since the given time.
        list: async ({ since }: { since: Date }) => {
          polls++;
          if (polls >= 2) stop.abort(); // the second poll sees the same attempt again
          return attempt.requestedAt >= since.toISOString() ? [attempt] : [];
        },
      },
    } as unknown as WebhookManagement;
    const result = await cli(['attempts', 'tail'], { open: async () => management, signal: stop.signal });
    expect(result.code).toBe(0);
    expect(polls).toBe(2);
    expect(result.stdout.match(new RegExp(attempt.deliveryId, 'g'))).toHaveLength(1);
    expect(result.stderr).toContain('Ctrl-C stops');
  });

  it('with --json, writes one JSON object per line', async () => {
    const stop = new AbortController();
    const management = {
      attempts: {
        list: async () => {
          stop.abort();
          return [attempt];
        },
      },
    } as unknown as WebhookManagement;
    const result = await cli(['attempts', 'tail', '--connection', 'con_1', '--json'], {
      open: async () => management,
      signal: stop.signal,
    });
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).deliveryId),
    ).toEqual([attempt.deliveryId]);
  });
});

describe('attempts failures', () => {
  it('counts failed test sends apart from failed deliveries', async () => {
    const record = (test: boolean) => ({
      deliveryId: 'dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_1',
      attempt: test ? 1 : 4,
      outcome: 'http_error',
      statusCode: 503,
      durationMs: 5,
      requestedAt: new Date().toISOString(),
      final: true,
      ...(test ? { test: true } : {}),
    });
    const management = {
      attempts: { finalFailures: async () => [record(false), record(true)] },
      deliveries: {
        failuresNow: async (found: object[]) => found.map((f) => ({ ...f, now: 'dead_lettered' })),
      },
    } as unknown as WebhookManagement;
    const result = await cli(['attempts', 'failures'], { open: async () => management });
    expect(result.stdout).toContain(
      '2 final failures today (UTC) (1 failed delivery, 1 failed test send; test sends are never retried)',
    );
    expect(result.stdout).toContain('test, not retried');
  });
});

describe('attempts get, after a final failure', () => {
  const deliveryId = 'dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B';
  const final = {
    deliveryId,
    connectionId: 'con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
    eventId: 'evt_1',
    event: 'user.identified',
    attempt: 4,
    outcome: 'http_error',
    statusCode: 503,
    durationMs: 5,
    requestedAt: '2026-11-21T15:00:00.000Z',
    final: true,
  };
  const getDelivery = (parkedGet: () => Promise<unknown>) =>
    cli(['--local', 'attempts', 'get', deliveryId], {
      open: async () =>
        ({
          attempts: { ofDelivery: async () => [final] },
          parked: { get: parkedGet },
        }) as unknown as WebhookManagement,
    });

  it('suggests attempts retry, not dlq redrive, for a parked delivery', async () => {
    const result = await getDelivery(async () => ({ deliveryId, reason: 'exhausted' }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Send it again, once the receiver is fixed:\n  npx webhooks --local attempts retry ${deliveryId}`,
    );
    expect(result.stdout).not.toContain('dlq redrive');
  });

  it('says to enable the connection first when it was parked for the connection being disabled', async () => {
    const result = await getDelivery(async () => ({ deliveryId, reason: 'connection_disabled' }));
    expect(result.stdout).toContain(
      `Send it again, once ${final.connectionId} is enabled (npx webhooks --local connections enable ${final.connectionId}):\n  npx webhooks --local attempts retry ${deliveryId}`,
    );
  });

  it('points at the DLQ only as a maybe when the delivery is not parked', async () => {
    const result = await getDelivery(async () => undefined);
    expect(result.stdout).toContain('not parked (any more)');
    expect(result.stdout).toContain(
      `If it is in the dead-letter queue (npx webhooks --local dlq list), send it again, once the receiver is fixed:\n  npx webhooks --local dlq redrive ${deliveryId}`,
    );
    expect(result.stdout).not.toContain('attempts retry');
  });

  it('still shows the attempts when the parked table cannot be read, with no suggestion it cannot back', async () => {
    const result = await getDelivery(async () => {
      throw new Error('ResourceNotFoundException: Requested resource not found');
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('failed after 1 attempt; parked for its connection');
    expect(result.stdout).toContain('final');
    expect(result.stdout).not.toContain('Send it again');
  });

  it('suggests nothing to send again when its connection is gone', async () => {
    const result = await getDelivery(async () => {
      throw new NotFoundError('delivery', deliveryId);
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('does not exist (any more), so there is nothing to send it to');
    expect(result.stdout).not.toContain('Send it again');
  });
});

describe('the connection cache time a change waits for', () => {
  const change = (argv: string[], connectionCacheTtlMs?: number, current = CONNECTION) =>
    cli(argv, {
      open: async () =>
        ({
          connectionCacheTtlMs,
          connections: {
            get: async () => current,
            update: async () => CONNECTION,
            setEnabled: async (_id: string, enabled: boolean) => ({ ...CONNECTION, enabled }),
            rotateSecret: async () => ({
              secret: 'whsec_x',
              secretVersion: 'v2',
              switchAt: new Date().toISOString(),
            }),
          },
          listParked: async () => ({ data: [] }),
        }) as unknown as WebhookManagement,
    });

  it('is the one local mode runs with, in local mode', async () => {
    for (const argv of [
      ['connections', 'update', 'con_1', '--name', 'New'],
      ['connections', 'disable', 'con_1'],
    ]) {
      const { code, stdout } = await change(['--local', ...argv], 1_000);
      expect(code).toBe(0);
      expect(stdout).toContain('within its connection cache time (1 s in local mode)');
      expect(stdout).not.toContain('30 s');
    }
    const rotated = await change(['--local', 'connections', 'rotate-secret', 'con_1'], 1_000);
    expect(rotated.stdout).toContain("within the dispatcher's connection cache time (1 s in local mode)");
  });

  it('is the default against a deployed stack, whose own setting the CLI does not know', async () => {
    const { stdout } = await change(['connections', 'update', 'con_1', '--name', 'New']);
    expect(stdout).toContain('within its connection cache time (30 s by default)');
  });

  it('says enable waits for it too', async () => {
    const { stdout } = await change(['--local', 'connections', 'enable', 'con_1'], 1_000, {
      ...CONNECTION,
      enabled: false,
    });
    expect(stdout).toContain('within its connection cache time (1 s in local mode)');
  });
});

describe('publish, where the event goes', () => {
  const disabledByHand = { ...CONNECTION, connectionId: 'con_off', enabled: false };
  const disabledByHealth = {
    ...CONNECTION,
    connectionId: 'con_sick',
    enabled: false,
    health: { state: 'disabled', consecutiveFailures: 5, version: 3 },
  };
  const known = [CONNECTION, disabledByHand, disabledByHealth];
  const publish = (argv: string[], files: Record<string, unknown> = {}) =>
    cli(['--local', 'publish', ...argv], {
      open: async () =>
        ({
          publisher: { publishUserIdentified: async () => ({ eventId: 'evt_1', messageId: 'm1' }) },
          connections: {
            list: async () => known,
            get: async (id: string) => {
              const found = known.find((c) => c.connectionId === id) ?? files[id];
              if (!found) throw new NotFoundError('connection', id);
              return found;
            },
          },
        }) as unknown as WebhookManagement,
    });
  const withFile = async (connectionIds: string[], files?: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), 'wh-publish-'));
    const file = join(dir, 'event.json');
    writeFileSync(
      file,
      JSON.stringify({ user: { id: 'usr_1' }, application: { id: 'app_1', name: 'A' }, connectionIds }),
    );
    try {
      return await publish(['--file', file], files);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('says a named disabled connection parks its delivery, and publishes it all the same', async () => {
    const result = await withFile(['con_off']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Published event evt_1');
    expect(result.stdout).toContain(
      'con_off is disabled: its delivery will be parked, not sent. Enable it, then send what was parked:\n' +
        '  npx webhooks --local connections enable con_off\n' +
        '  npx webhooks --local connections recover con_off',
    );
    expect(result.stdout).not.toContain('It goes to con_off');
  });

  it('says a named connection that does not exist, or is another application’s, dead-letters its delivery', async () => {
    const result = await withFile(['con_1', 'con_gone', 'con_theirs'], {
      con_theirs: { ...CONNECTION, connectionId: 'con_theirs', applicationId: 'app_2' },
    });
    expect(result.stdout).toContain('It goes to con_1.');
    expect(result.stdout).toContain(
      'con_gone does not exist: its delivery will go to the dead-letter queue, not to a receiver.',
    );
    expect(result.stdout).toContain(
      'con_theirs belongs to another application, not app_1: its delivery will go',
    );
  });

  it("lists the application's connections as the fan-out does: a health-disabled one parks, a hand-disabled one is skipped", async () => {
    const result = await publish(['--application', 'app_1', '--user-json', '{"id":"usr_1"}']);
    expect(result.stdout).toContain('It goes to con_1.');
    expect(result.stdout).toContain('con_sick is disabled: its delivery will be parked, not sent.');
    expect(result.stdout).not.toContain('con_off');
  });
});

describe('attempts get and resend: the request sent, and sending it again', () => {
  const deliveryId = 'dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B';
  const base = {
    deliveryId,
    connectionId: 'con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
    eventId: 'evt_1',
    event: 'user.identified',
    method: 'POST',
    target: 'https://a.example/hooks',
    durationMs: 5,
    requestedAt: '2026-11-21T15:00:00.000Z',
  };
  const headers = [
    { name: 'content-type', value: 'application/json' },
    { name: 'x-service-signature', value: 'v1=abc123' },
    { name: 'x-tenant', value: '[hidden]' },
  ];
  const get = (records: unknown[]) =>
    cli(['--local', 'attempts', 'get', deliveryId], {
      open: async () =>
        ({
          attempts: { ofDelivery: async () => records },
          parked: { get: async () => undefined },
        }) as unknown as WebhookManagement,
    });

  it('shows the latest request: method, target, every header as kept, and the body kept on the first record', async () => {
    const result = await get([
      {
        ...base,
        attempt: 1,
        outcome: 'http_error',
        statusCode: 500,
        final: false,
        requestHeaders: headers,
        body: '{"event":"user.identified"}',
      },
      {
        ...base,
        attempt: 2,
        outcome: 'delivered',
        statusCode: 200,
        final: true,
        requestHeaders: [headers[1]!],
      },
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Request (attempt 2):\n  POST https://a.example/hooks\n  x-service-signature: v1=abc123\n\n  {"event":"user.identified"}',
    );
  });

  it('says plainly why a body is not there', async () => {
    const result = await get([
      { ...base, attempt: 1, outcome: 'delivered', statusCode: 200, final: true, requestHeaders: headers },
    ]);
    expect(result.stdout).toContain('x-tenant: [hidden]');
    expect(result.stdout).toContain(
      "(no body: bodies of delivered deliveries are not kept by this stack's settings (keepBodies: 'failures'))",
    );
  });

  it('resend queues the delivery again through the management library and says which attempt it is', async () => {
    const calls: unknown[] = [];
    const result = await cli(['--local', 'attempts', 'resend', deliveryId], {
      open: async () =>
        ({
          resendDelivery: async (id: string) => {
            calls.push(id);
            return { deliveryId: id, connectionId: base.connectionId, attempt: 3 };
          },
        }) as unknown as WebhookManagement,
    });
    expect(result.code).toBe(0);
    expect(calls).toEqual([deliveryId]);
    expect(result.stdout).toContain(
      `Queued ${deliveryId} again as attempt 3 for ${base.connectionId}. Follow it: npx webhooks --local attempts get ${deliveryId}`,
    );
  });
});
