/**
 * Rotation with overlap in the management library (lambdas/management/secret-rotation.ts), on
 * memory ports and an injected clock: a rotation shows the new secret at once and switches to
 * it later; Show Secret shows both until then; rotating again replaces the pending one.
 */

import { ValidationError } from '../../../lambdas/core/errors';
import { WebhookManagement } from '../../../lambdas/management';
import { switchTimeOf } from '../../../lambdas/management/secret-rotation';
import { MEMORY_RESOURCES, memoryBackend } from '../../support/memory/backend';

const T0 = Date.parse('2026-11-21T15:00:00.000Z');
const HOUR = 3_600_000;

async function setup(resources: Partial<typeof MEMORY_RESOURCES> = {}) {
  const clock = { ms: T0, now: () => clock.ms };
  const parts = memoryBackend();
  const management = new WebhookManagement({
    resources: { ...MEMORY_RESOURCES, ...resources },
    backend: parts.backend,
    clock,
  });
  const { connectionId } = await management.connections.create({
    applicationId: 'app_rotation',
    name: 'CRM',
    url: 'https://crm.example.com/hooks',
  });
  const first = await management.connections.showSecret(connectionId);
  return { ...parts, management, clock, connectionId, first };
}

describe('a rotation with the default overlap', () => {
  it('shows the new secret at once, keeps the current one signing for 24 hours, then switches', async () => {
    const { management, clock, connectionId, first } = await setup();
    const rotated = await management.connections.rotateSecret(connectionId);
    const switchAt = new Date(T0 + 24 * HOUR).toISOString();
    expect(rotated).toEqual({
      secret: expect.stringMatching(/^whsec_/),
      secretVersion: expect.any(String),
      switchAt,
      previousVersion: first.secretVersion,
    });
    expect(await management.connections.showSecret(connectionId)).toEqual({
      secret: first.secret,
      secretVersion: first.secretVersion,
      next: { secret: rotated.secret, secretVersion: rotated.secretVersion, switchAt },
    });
    expect(await management.connections.get(connectionId)).toMatchObject({
      secretVersion: first.secretVersion,
      nextSecretVersion: rotated.secretVersion,
      secretSwitchAt: switchAt,
    });
    clock.ms = T0 + 24 * HOUR;
    expect(await management.connections.showSecret(connectionId)).toEqual({
      secret: rotated.secret,
      secretVersion: rotated.secretVersion,
    });
    const after = await management.connections.get(connectionId);
    expect(after.secretVersion).toBe(rotated.secretVersion);
    expect(after).not.toHaveProperty('nextSecretVersion');
  });

  it('takes the stack overlap from its resources; 0 switches at once, as before', async () => {
    const short = await setup({ secretRotationOverlapSeconds: 60 });
    expect((await short.management.connections.rotateSecret(short.connectionId)).switchAt).toBe(
      new Date(T0 + 60_000).toISOString(),
    );
    const off = await setup({ secretRotationOverlapSeconds: 0 });
    const rotated = await off.management.connections.rotateSecret(off.connectionId);
    expect(rotated.switchAt).toBe(new Date(T0).toISOString());
    expect(await off.management.connections.showSecret(off.connectionId)).toEqual({
      secret: rotated.secret,
      secretVersion: rotated.secretVersion,
    });
  });
});

describe('rotating again before the switch', () => {
  it('replaces the pending secret; the current one keeps signing until the new switch time', async () => {
    const { management, clock, connectionId, first } = await setup();
    const one = await management.connections.rotateSecret(connectionId, { switchAfter: 3600 });
    clock.ms += 60_000;
    const two = await management.connections.rotateSecret(connectionId, { switchAfter: 7200 });
    expect(two.previousVersion).toBe(first.secretVersion);
    expect(await management.connections.showSecret(connectionId)).toEqual({
      secret: first.secret,
      secretVersion: first.secretVersion,
      next: { secret: two.secret, secretVersion: two.secretVersion, switchAt: two.switchAt },
    });
    // The first rotation's switch time passes: nothing changes, its secret was replaced.
    clock.ms = Date.parse(one.switchAt);
    expect((await management.connections.showSecret(connectionId)).secret).toBe(first.secret);
    clock.ms = Date.parse(two.switchAt);
    expect((await management.connections.showSecret(connectionId)).secret).toBe(two.secret);
  });

  it('after a switch has passed, starts from the secret that signs now', async () => {
    const { management, clock, connectionId } = await setup();
    const one = await management.connections.rotateSecret(connectionId, { switchAfter: 10 });
    clock.ms += 10_000;
    const two = await management.connections.rotateSecret(connectionId);
    expect(two.previousVersion).toBe(one.secretVersion);
    expect(await management.connections.showSecret(connectionId)).toMatchObject({
      secret: one.secret,
      next: { secret: two.secret },
    });
  });

  it('switches at once with switchAfter: 0, dropping the pending secret', async () => {
    const { management, connectionId } = await setup();
    await management.connections.rotateSecret(connectionId);
    const now = await management.connections.rotateSecret(connectionId, { switchAfter: 0 });
    expect(now.switchAt).toBe(new Date(T0).toISOString());
    expect(await management.connections.showSecret(connectionId)).toEqual({
      secret: now.secret,
      secretVersion: now.secretVersion,
    });
  });
});

describe('the switch time a rotation asks for', () => {
  it('is a time within 30 days, or seconds from now; one of them', () => {
    expect(switchTimeOf({ switchAt: '2026-11-22T09:00:00Z' }, T0)).toBe(Date.parse('2026-11-22T09:00:00Z'));
    expect(switchTimeOf({ switchAfter: 2 }, T0)).toBe(T0 + 2000);
    expect(switchTimeOf({}, T0, 0)).toBe(T0);
    const refused = [
      [{ switchAfter: 1, switchAt: '2026-11-22T09:00:00Z' }, /not both/],
      [{ switchAt: '2026-11-20T09:00:00Z' }, /in the past/],
      [{ switchAt: 'tomorrow' }, /ISO 8601/],
      [{ switchAt: '2027-01-30T00:00:00Z' }, /30 days/],
      [{ switchAfter: -1 }, /from 0/],
      [{ switchAfter: 1.5 }, /whole number/],
    ] as const;
    for (const [choice, message] of refused) {
      expect(() => switchTimeOf(choice, T0)).toThrow(ValidationError);
      expect(() => switchTimeOf(choice, T0)).toThrow(message);
    }
  });
});
