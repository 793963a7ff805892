/**
 * `connections rotate-secret` and `show-secret` with rotation overlap (cli/commands/secrets.ts):
 * the switch time each asks for, and what each prints — the new secret, when it starts signing,
 * and the advice to accept both until then — in the same words and times as the API.
 */

import type { WebhookManagement } from '../../../lambdas/management';
import { runCli } from '../../support/cli-run';

const NEXT_SWITCH = new Date(Date.now() + 24 * 3_600_000).toISOString();

function cli(argv: string[], shown: object = { secret: 'whsec_current', secretVersion: 'v1' }) {
  const rotations: unknown[] = [];
  const management = {
    connections: {
      rotateSecret: async (_id: string, choice: { switchAfter?: number }) => {
        rotations.push(choice);
        const switchAt = choice.switchAfter === 0 ? new Date().toISOString() : NEXT_SWITCH;
        return { secret: 'whsec_next', secretVersion: 'v2', switchAt, previousVersion: 'v1' };
      },
      showSecret: async () => shown,
    },
  } as unknown as WebhookManagement;
  return runCli(argv, { open: async () => management }).then((run) => ({ ...run, rotations }));
}

describe('connections rotate-secret', () => {
  it('prints the new secret, when it starts signing, and to accept both until then', async () => {
    const { code, stdout, rotations } = await cli(['connections', 'rotate-secret', 'con_1']);
    expect(code).toBe(0);
    expect(rotations).toEqual([{}]);
    expect(stdout).toContain('\n  whsec_next\n');
    expect(stdout).toMatch(new RegExp(`signing from ${NEXT_SWITCH} \\(in 2[34]h\\)`));
    expect(stdout).toContain(
      'Until then the current secret keeps signing. Have the receiver accept both now:',
    );
    expect(stdout).toContain('secret: [currentSecret, nextSecret]');
    expect(stdout).toContain('webhooks connections show-secret con_1');
  });

  it.each([
    ['2h', 7_200],
    ['30m', 1_800],
    ['45s', 45],
    ['1d', 86_400],
    ['90', 90],
  ])('takes --switch-after %s as %i seconds', async (flag, seconds) => {
    const { rotations } = await cli(['connections', 'rotate-secret', 'con_1', '--switch-after', flag]);
    expect(rotations).toEqual([{ switchAfter: seconds }]);
  });

  it('says the new secret is in use at once with --switch-after 0, and passes --switch-at on', async () => {
    const now = await cli(['connections', 'rotate-secret', 'con_1', '--switch-after', '0']);
    expect(now.stdout).toContain('New signing secret of con_1, in use at once:');
    expect(now.stdout).toContain('the old\nsecret no longer signs after that');
    const at = await cli(['connections', 'rotate-secret', 'con_1', '--switch-at', '2030-01-31T09:00:00Z']);
    expect(at.rotations).toEqual([{ switchAt: '2030-01-31T09:00:00Z' }]);
  });

  it('refuses a --switch-after it cannot read, naming the flag', async () => {
    const { code, stderr, rotations } = await cli([
      'connections',
      'rotate-secret',
      'con_1',
      '--switch-after',
      'soon',
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--switch-after: expected 0, 45s, 30m, 2h or 1d, got "soon"');
    expect(rotations).toEqual([]);
  });

  it('prints the rotation with --json', async () => {
    const { stdout } = await cli(['--json', 'connections', 'rotate-secret', 'con_1']);
    expect(JSON.parse(stdout)).toEqual({
      connectionId: 'con_1',
      secret: 'whsec_next',
      secretVersion: 'v2',
      switchAt: NEXT_SWITCH,
      previousVersion: 'v1',
    });
  });
});

describe('connections show-secret during a rotation', () => {
  const pending = {
    secret: 'whsec_current',
    secretVersion: 'v1',
    next: { secret: 'whsec_next', secretVersion: 'v2', switchAt: NEXT_SWITCH },
  };

  it('prints the secret that signs now on stdout, and the next one with its switch time on stderr', async () => {
    const { stdout, stderr } = await cli(['connections', 'show-secret', 'con_1'], pending);
    expect(stdout).toBe('whsec_current\n');
    expect(stderr).toMatch(new RegExp(`Next secret, signing from ${NEXT_SWITCH} \\(in 2[34]h\\):`));
    expect(stderr).toContain('\n  whsec_next\n');
    expect(stderr).toContain('secret: [currentSecret, nextSecret]');
  });

  it('prints only the secret when no switch is ahead, and both with --json', async () => {
    const plain = await cli(['connections', 'show-secret', 'con_1']);
    expect(plain.stdout).toBe('whsec_current\n');
    expect(plain.stderr).toBe('');
    const json = await cli(['--json', 'connections', 'show-secret', 'con_1'], pending);
    expect(JSON.parse(json.stdout)).toEqual({ connectionId: 'con_1', ...pending });
  });
});
