import type { Connection } from '../../../lambdas/core/types';
import { NotFoundError, ValidationError, type WebhookManagement } from '../../../lambdas/management';
import { runCli } from '../../support/cli-run';

const connection: Connection = {
  connectionId: 'con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
  applicationId: 'app_42',
  type: 'webhook',
  name: 'Acme CRM',
  url: 'https://crm.example.com/hooks',
  method: 'POST',
  headers: { Authorization: 'Bearer s3cr3t' },
  enabled: true,
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhooks/Webhooks/con_x',
  createdAt: '2026-11-21T15:00:00.000Z',
  updatedAt: '2026-11-21T15:00:00.000Z',
};

/** An in-memory stand-in for the two calls these tests make. */
const fake = {
  connections: {
    async get(id: string) {
      if (id === connection.connectionId) return connection;
      if (!id.startsWith('con_')) throw new ValidationError('connectionId', 'must look like con_<id>');
      throw new NotFoundError('connection', id);
    },
    async create() {
      throw new ValidationError('url', 'must use https:, got http:');
    },
  },
} as unknown as WebhookManagement;

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(argv, { env, open: async () => fake });
}

describe('webhooks', () => {
  it('shows a connection for people, without its header values', async () => {
    const result = await cli(['connections', 'get', connection.connectionId]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('headers      Authorization (values hidden)');
    expect(result.stdout).not.toContain('s3cr3t');
    expect(result.stderr).toBe('');
  });

  it('prints only JSON with --json, header values hidden', async () => {
    const result = await cli(['connections', 'get', connection.connectionId, '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ ...connection, headers: { Authorization: '[hidden]' } });
  });

  it('turns a missing connection into one line and exit status 1', async () => {
    const result = await cli(['connections', 'get', 'con_missing']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'webhooks: connection con_missing does not exist\n',
    });
  });

  it('names the field of a validation error', async () => {
    const args = [
      'connections',
      'create',
      '--application',
      'app_1',
      '--name',
      'x',
      '--url',
      'http://x.example',
    ];
    expect(await cli(args)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'webhooks: url: must use https:, got http:\n',
    });
  });

  it('points a bad flag value at the command help, with exit status 2', async () => {
    const result = await cli(['attempts', 'list', '--connection', 'con_1', '--since', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^webhooks: --since: .*; see: npx webhooks attempts list --help\n$/);
  });

  it('prints a stack trace only with DEBUG=webhooks', async () => {
    expect((await cli(['connections', 'get', 'con_missing'])).stderr.split('\n')).toHaveLength(2);
    const debug = await cli(['connections', 'get', 'con_missing'], { DEBUG: 'webhooks' });
    expect(debug.stderr).toMatch(
      /^webhooks: connection con_missing does not exist\nNotFoundError: .*\n\s+at /,
    );
  });

  it('prints help on stdout with exit status 0', async () => {
    const result = await cli(['dlq', 'redrive', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('webhooks dlq redrive <delivery-id>… | --all');
  });
});
