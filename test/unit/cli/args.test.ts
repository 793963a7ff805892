import { parseCommandLine } from '../../../cli/args';
import { UsageError } from '../../../cli/errors';
import { COMMANDS } from '../../../cli/main';

function run(argv: string[]) {
  const parsed = parseCommandLine(argv, COMMANDS);
  if (parsed.kind !== 'run') throw new Error(`expected a command, got help:\n${parsed.text}`);
  return parsed;
}

function usageError(argv: string[]): UsageError {
  try {
    parseCommandLine(argv, COMMANDS);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('the command line', () => {
  it('finds the command, its flags and positionals', () => {
    const parsed = run(['connections', 'get', 'con_1']);
    expect(parsed.command.name).toEqual(['connections', 'get']);
    expect(parsed.positionals).toEqual(['con_1']);
    expect(parsed.globals).toEqual({ local: false, json: false });
  });

  it('accepts global flags before, between and after the command words', () => {
    const parsed = run(['--local', 'connections', '--json', 'list', '--application', 'app_1']);
    expect(parsed.command.name).toEqual(['connections', 'list']);
    expect(parsed.globals).toMatchObject({ local: true, json: true });
    expect(parsed.flags.application).toBe('app_1');
  });

  it('does not take the value of --stack, --region or --profile for a command word', () => {
    const parsed = run(['--stack', 'Staging', '--region=eu-west-1', '--profile', 'ops', 'dlq', 'list']);
    expect(parsed.command.name).toEqual(['dlq', 'list']);
    expect(parsed.globals).toMatchObject({ stack: 'Staging', region: 'eu-west-1', profile: 'ops' });
    expect(parsed.flags).toEqual({});
  });

  it('collects repeated --header flags in order', () => {
    const parsed = run([
      'connections',
      'create',
      '--application',
      'app_1',
      '--header',
      'Authorization: Bearer x',
      '--header',
      'X-Tenant: acme',
    ]);
    expect(parsed.flags.header).toEqual(['Authorization: Bearer x', 'X-Tenant: acme']);
  });

  it('runs a command without subcommands (publish)', () => {
    const parsed = run(['publish', '--file', 'event.json']);
    expect(parsed.command.name).toEqual(['publish']);
    expect(parsed.flags.file).toBe('event.json');
  });

  it('takes any number of delivery ids for dlq redrive', () => {
    expect(run(['dlq', 'redrive', 'dlv_a', 'dlv_b', 'dlv_c']).positionals).toHaveLength(3);
  });

  it('shows the list of commands for no arguments, --help and -h', () => {
    for (const argv of [[], ['--help'], ['-h']]) {
      const parsed = parseCommandLine(argv, COMMANDS);
      expect(parsed.kind).toBe('help');
      if (parsed.kind === 'help') expect(parsed.text).toContain('connections create');
    }
  });

  it('shows a group help and a command help, with usage, flags and an example', () => {
    const group = parseCommandLine(['connections', '--help'], COMMANDS);
    expect(group.kind === 'help' && group.text).toContain('rotate-secret');
    const command = parseCommandLine(['attempts', 'list', '--help', '--bogus'], COMMANDS);
    expect(command.kind).toBe('help');
    if (command.kind === 'help') {
      expect(command.text).toContain('Usage\n  webhooks attempts list --connection <connection-id>');
      expect(command.text).toContain('--since <when>');
      expect(command.text).toContain('--local');
      expect(command.text).toMatch(/Example\n {2}\$ webhooks attempts list/);
    }
  });

  it('has help with an example on every command', () => {
    for (const command of COMMANDS) {
      const parsed = parseCommandLine([...command.name, '--help'], COMMANDS);
      expect(parsed.kind === 'help' && parsed.text).toContain(`$ webhooks ${command.name.join(' ')}`);
    }
  });

  it.each([
    [
      ['nope'],
      /^unknown command "nope" \(commands: connections, publish, attempts, dlq\)$/,
      'webhooks --help',
    ],
    [['connections'], /^"connections" needs a subcommand: create, list/, 'webhooks connections --help'],
    [['connections', 'frob'], /^unknown command "connections frob"$/, 'webhooks connections --help'],
    [
      ['connections', 'create', '--nme', 'x'],
      /^unknown flag --nme for "webhooks connections create"$/,
      'webhooks connections create --help',
    ],
    [['connections', 'create', '--url'], /^--url needs a value$/, 'webhooks connections create --help'],
    [['connections', 'list', '--json=yes'], /^--json takes no value$/, 'webhooks connections list --help'],
    [['connections', 'get'], /^missing <connection-id>$/, 'webhooks connections get --help'],
    [
      ['connections', 'get', 'a', 'b'],
      /^unexpected argument "b" after <connection-id>$/,
      'webhooks connections get --help',
    ],
    [['dlq', 'list', 'extra'], /^unexpected argument "extra"$/, 'webhooks dlq list --help'],
    [
      ['--local', 'dlq', 'list', '--stack', 'X'],
      /^--local cannot be combined with --stack/,
      'webhooks dlq list --help',
    ],
    [['--json'], /^which command\?/, 'webhooks --help'],
  ])('refuses %j with a one-line reason and where help is', (argv, message, hint) => {
    const error = usageError(argv);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
    expect(error.hint).toBe(hint);
    expect(error.exitCode).toBe(2);
  });
});
