import { PassThrough } from 'node:stream';
import { publishInput } from '../../../cli/commands/publish';
import { run } from '../../../cli/main';
import type { WebhookManagement } from '../../../lambdas/management';
import type { PublishInput } from '../../../lambdas/publisher';

describe('publish input', () => {
  it('builds the event from --application and --user-json, naming the application after its id by default', () => {
    expect(publishInput({ application: 'app_42', userJson: '{"id":"usr_1"}' })).toEqual({
      user: { id: 'usr_1' },
      application: { id: 'app_42', name: 'app_42' },
    });
    expect(
      publishInput({ application: 'app_42', applicationName: 'Acme', userJson: '{"id":"usr_1"}' }),
    ).toMatchObject({
      application: { id: 'app_42', name: 'Acme' },
    });
  });

  it('reads the whole event from --file', () => {
    const file = { user: { id: 'usr_1' }, application: { id: 'app_1', name: 'A' }, connectionIds: ['con_1'] };
    expect(publishInput({ file: 'e.json', readFile: () => JSON.stringify(file) })).toEqual(file);
  });

  it('takes the event id from --file, so the same file publishes the same event again', () => {
    const file = { eventId: 'evt_signup-42', user: { id: 'usr_1' }, application: { id: 'app_1', name: 'A' } };
    expect(publishInput({ file: 'e.json', readFile: () => JSON.stringify(file) })).toEqual(file);
  });

  it('refuses a file with fields it does not know, or combined with the other flags', () => {
    expect(() => publishInput({ file: 'e.json', readFile: () => '{"user":{},"eventID":"evt_1"}' })).toThrow(
      '--file: unknown field eventID (expected eventId, user, application, occurredAt, connectionIds)',
    );
    expect(() => publishInput({ file: 'e.json', application: 'app_1', readFile: () => '{}' })).toThrow(
      /^--file holds the whole event/,
    );
  });

  it('says what is missing', () => {
    expect(() => publishInput({ application: 'app_1' })).toThrow(
      'give --user-json with --application, or --file',
    );
    expect(() => publishInput({ userJson: '{}' })).toThrow('--application is required with --user-json');
    expect(() => publishInput({ application: 'app_1', userJson: '{"id": usr_1}' })).toThrow(
      /^--user-json: not valid JSON/,
    );
    expect(() => publishInput({ application: 'app_1', userJson: '{"id": usr_1}' })).not.toThrow(/usr_1/);
  });

  it("targets the connections --connection names, each once, as the event's connectionIds", () => {
    expect(
      publishInput({
        application: 'app_1',
        userJson: '{"id":"usr_1"}',
        connections: ['con_A', 'con_B', 'con_A'],
      }),
    ).toEqual({
      user: { id: 'usr_1' },
      application: { id: 'app_1', name: 'app_1' },
      connectionIds: ['con_A', 'con_B'],
    });
    const file = { user: { id: 'usr_1' }, application: { id: 'app_1', name: 'A' } };
    expect(
      publishInput({ file: 'e.json', readFile: () => JSON.stringify(file), connections: ['con_A'] }),
    ).toEqual({
      ...file,
      connectionIds: ['con_A'],
    });
    expect(() =>
      publishInput({
        file: 'e.json',
        readFile: () => JSON.stringify({ ...file, connectionIds: ['con_B'] }),
        connections: ['con_A'],
      }),
    ).toThrow("--connection and the file's connectionIds both name targets: use one of them");
  });
});

describe('publish without --application-name', () => {
  async function publish(argv: string[], known: string | undefined) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    stdout.resume();
    const sent: PublishInput[] = [];
    const asked: string[] = [];
    const fake = {
      applicationName: async (id: string) => {
        asked.push(id);
        return known;
      },
      publisher: {
        publishUserIdentified: async (input: PublishInput) => {
          sent.push(input);
          return { eventId: 'evt_1', messageId: 'm1' };
        },
      },
      connections: { list: async () => [] },
    } as unknown as WebhookManagement;
    const code = await run(['--local', 'publish', ...argv], {
      stdout,
      stderr,
      env: {},
      open: async () => fake,
    });
    return { code, stderr: err, application: sent[0]?.application, asked };
  }
  const user = ['--user-json', '{"id":"usr_1"}'];

  it('names the application as its events last did (as Send Test does), and says so', async () => {
    const result = await publish(['--application', 'app_42', ...user], 'Acme Extension');
    expect(result.code).toBe(0);
    expect(result.application).toEqual({ id: 'app_42', name: 'Acme Extension' });
    expect(result.stderr).toContain(
      `Application name: "Acme Extension", the name app_42's events last carried (--application-name sets another).`,
    );
    // --application-name wins, and nothing is looked up.
    const given = await publish(['--application', 'app_42', '--application-name', 'Mine', ...user], 'Other');
    expect(given.application).toEqual({ id: 'app_42', name: 'Mine' });
    expect(given.asked).toEqual([]);
  });

  it('uses the id when no name is known, and says so', async () => {
    const result = await publish(['--application', 'app_42', ...user], undefined);
    expect(result.application).toEqual({ id: 'app_42', name: 'app_42' });
    expect(result.stderr).toContain('Application name: app_42, its id: no kept delivery of app_42 names it');
  });
});
