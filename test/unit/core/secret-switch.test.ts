/**
 * A rotation with overlap as the dispatcher sees it (core/secret-switch.ts): before the switch
 * time the current secret signs, from it on the pending one, judged by the dispatcher's own
 * (injected) clock when the request is signed; one signature header either way.
 */

import { createAttempter, type Run } from '../../../lambdas/core/attempt';
import { pendingAsCurrent, switchedAt } from '../../../lambdas/core/secret-switch';
import type { Settlement, Settler } from '../../../lambdas/core/settle';
import type { AttemptRecord, Connection, DeliveryMessage } from '../../../lambdas/core/types';
import { verifyWebhook } from '../../../lambdas/core/verify';
import { connection, deliveryMessage, ok } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const SWITCH_AT = '2026-11-21T15:00:10.000Z';
const plenty: Run = { remainingMs: () => 90_000, debugLines: false };
const BODY = '{"event":"user.identified","user":{"id":"usr_7"}}';

function rotating(overrides: Partial<Connection> = {}): Connection {
  return connection('con_a', {
    secretVersion: 'v1',
    nextSecretVersion: 'v2',
    secretSwitchAt: SWITCH_AT,
    ...overrides,
  });
}

function delivery(attempt = 1): DeliveryMessage {
  return deliveryMessage({ attempt, body: BODY, firstAttemptAt: '2026-11-21T15:00:00.000Z' });
}

function setup(echo?: string) {
  const f = memoryPorts([], { responder: () => ok(200, echo ?? 'ok') });
  f.secrets.put(connection('con_a').secretArn, 'v1', OLD);
  f.secrets.put(connection('con_a').secretArn, 'v2', NEW);
  const settlements: Settlement[] = [];
  const settler: Settler = {
    async settle(s) {
      settlements.push(s);
      return {} as AttemptRecord;
    },
    async record() {},
    noteAppend() {},
  };
  const attempter = createAttempter(f.deps, settler, {
    headerPrefix: 'X-Service',
    timeoutMs: 30_000,
    concurrency: 10,
    egress: { allowedPorts: [443], allowLoopback: false },
  });
  const send = async (c: Connection) => {
    await attempter.deliverTo(delivery(), { id: c.connectionId, connection: c }, {} as never, plenty);
    return f.state.sent.at(-1)!;
  };
  return { ...f, send, settlements };
}

/** Which of the two secrets a request verifies with: exactly one, or the test fails. */
function signedWith(request: { headers: Record<string, string>; body?: string }): 'old' | 'new' {
  const verifies = (secret: string) => {
    try {
      verifyWebhook({
        rawBody: request.body ?? '',
        headers: request.headers,
        secret,
        now: Number(request.headers['X-Service-Timestamp']),
      });
      return true;
    } catch {
      return false;
    }
  };
  const old = verifies(OLD);
  const next = verifies(NEW);
  expect(old).not.toBe(next);
  return old ? 'old' : 'new';
}

describe('the secret a delivery is signed with during a rotation', () => {
  it('is the current secret before the switch time, by the injected clock', async () => {
    const { send, state } = setup();
    state.now = Date.parse(SWITCH_AT) - 1;
    const request = await send(rotating());
    expect(signedWith(request)).toBe('old');
    // One signature, never two.
    expect(request.headers['X-Service-Signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('is the new secret from the switch time on', async () => {
    const { send, state } = setup();
    state.now = Date.parse(SWITCH_AT);
    expect(signedWith(await send(rotating()))).toBe('new');
    state.now += 3_600_000;
    expect(signedWith(await send(rotating()))).toBe('new');
  });

  it('is the current secret when no switch is ahead', async () => {
    const { send, state } = setup();
    state.now = Date.parse(SWITCH_AT) + 1;
    expect(signedWith(await send(connection('con_a', { secretVersion: 'v1' })))).toBe('old');
  });

  it('redacts both secrets from what the receiver answers while the switch is ahead', async () => {
    const { send, state, settlements } = setup(`echo ${NEW}`);
    state.now = Date.parse(SWITCH_AT) - 1;
    await send(rotating());
    expect(settlements[0]!.sensitive).toEqual(expect.arrayContaining([OLD, NEW]));
  });
});

describe('a connection as it stands at a time', () => {
  it('keeps its secrets before the switch, and has the pending one as current from it on', () => {
    const c = rotating();
    expect(switchedAt(c, Date.parse(SWITCH_AT) - 1)).toBe(c);
    const after = switchedAt(c, Date.parse(SWITCH_AT));
    expect(after).toMatchObject({ secretVersion: 'v2', secretArn: c.secretArn });
    expect(after).not.toHaveProperty('nextSecretVersion');
    expect(after).not.toHaveProperty('secretSwitchAt');
  });

  it('moves a kms store ciphertext with its version, and never switches on an unreadable time', () => {
    const sealed = { ...rotating(), secretCiphertext: 'c1', nextSecretCiphertext: 'c2' } as Connection;
    expect(pendingAsCurrent(sealed)).toMatchObject({ secretVersion: 'v2', secretCiphertext: 'c2' });
    expect(pendingAsCurrent(sealed)).not.toHaveProperty('nextSecretCiphertext');
    const garbled = rotating({ secretSwitchAt: 'soon' });
    expect(switchedAt(garbled, Date.parse(SWITCH_AT) + 1)).toBe(garbled);
    expect(pendingAsCurrent(garbled)).toBeUndefined();
  });
});
