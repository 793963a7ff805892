/**
 * Rotation with overlap in local mode, end to end: rotated through the management API with a
 * short switch time, deliveries published through the real dispatcher (Secrets Manager store on
 * the emulator) are signed with the old secret until the switch and with the new one after it,
 * and Show Secret shows both meanwhile. A receiver that holds only the old secret accepts every
 * delivery signed before the switch and none after; one that holds both (docs/protocol.md)
 * accepts all of them.
 */

import { verifyWebhook } from '../../lambdas/receiver';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import type { ReceivedRequest } from '../support/receivers';
import { type ApiHarness, appPath, startApiHarness } from './helpers/api';

let h: ApiHarness;
let pipeline: Harness;

beforeAll(async () => {
  h = await startApiHarness();
  pipeline = await startHarness({ ports: [h.receiver.port], attemptTimeoutMs: 2_000 });
});
afterAll(async () => {
  await pipeline?.stop();
  await h?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function verifies(secret: string | string[], req: ReceivedRequest): boolean {
  try {
    verifyWebhook({ rawBody: req.body, headers: req.headers as Record<string, string>, secret });
    return true;
  } catch {
    return false;
  }
}

/** The deliveries of this application the receiver got, once `count` have arrived. */
async function deliveriesOf(app: string, count: number, timeoutMs = 15_000): Promise<ReceivedRequest[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mine = h.receiver.requests.filter((r) => r.body.includes(`"id":"${app}"`));
    if (mine.length >= count) return mine;
    if (Date.now() > deadline)
      throw new Error(`${mine.length} of ${count} deliveries within ${timeoutMs} ms`);
    await sleep(50);
  }
}

const signedAt = (req: ReceivedRequest) => Number(req.headers['x-service-timestamp']);

/** A connection added through the API, its first secret, and the rotation's answer. */
async function rotatedConnection(switchAfter: number) {
  const app = id('app');
  const token = await h.tokenFor(app);
  const { connectionId } = await h.createVia(app, token);
  const secretPath = appPath(app, `/connections/${connectionId}/secret`);
  const old = (await h.call('GET', secretPath, { token })).body as { secret: string; secretVersion: string };
  const rotated = await h.call('POST', `${secretPath}/rotate`, { token, json: { switchAfter } });
  expect(rotated.status).toBe(200);
  return { app, token, secretPath, old, rotated: rotated.body as Record<string, string> };
}

it('signs with the old secret right after a rotation through the API, and with the new one only after the switch', async () => {
  const { app, token, secretPath, old, rotated } = await rotatedConnection(2);
  const switchAtMs = Date.parse(rotated.switchAt!);
  expect(rotated).toMatchObject({
    secret: expect.stringMatching(/^whsec_/),
    previousVersion: old.secretVersion,
  });
  expect(switchAtMs - Date.now()).toBeGreaterThan(1_000);

  // Show Secret: the one that signs now, and the next with its switch time.
  const shown = await h.call('GET', secretPath, { token });
  expect(shown.body).toEqual({
    secret: old.secret,
    secretVersion: old.secretVersion,
    next: { secret: rotated.secret, secretVersion: rotated.secretVersion, switchAt: rotated.switchAt },
  });

  await pipeline.publish(userIdentified(app));
  const [right] = await deliveriesOf(app, 1);
  expect(signedAt(right!)).toBeLessThan(switchAtMs);
  expect(verifies(old.secret, right!)).toBe(true);
  expect(verifies(rotated.secret!, right!)).toBe(false);

  await sleep(Math.max(0, switchAtMs - Date.now()) + 50);
  await pipeline.publish(userIdentified(app));
  const [, after] = await deliveriesOf(app, 2);
  expect(verifies(rotated.secret!, after!)).toBe(true);
  expect(verifies(old.secret, after!)).toBe(false);
  expect((await h.call('GET', secretPath, { token })).body).toEqual({
    secret: rotated.secret,
    secretVersion: rotated.secretVersion,
  });
});

it('lets a receiver holding only the old secret verify every delivery until the switch and none after', async () => {
  const { app, old, rotated } = await rotatedConnection(2);
  const switchAtMs = Date.parse(rotated.switchAt!);
  let published = 0;
  // An event every 200 ms from the rotation until 1.5 s past the switch.
  while (Date.now() < switchAtMs + 1_500) {
    await pipeline.publish(userIdentified(app));
    published++;
    await sleep(200);
  }
  const received = await deliveriesOf(app, published);
  const before = received.filter((r) => signedAt(r) < switchAtMs);
  const after = received.filter((r) => signedAt(r) >= switchAtMs);
  expect(before.length).toBeGreaterThan(3);
  expect(after.length).toBeGreaterThan(3);
  for (const r of before) expect(verifies(old.secret, r)).toBe(true);
  for (const r of after) expect(verifies(old.secret, r)).toBe(false);
  // A receiver that takes both secrets during the overlap, as docs/protocol.md says, misses none.
  for (const r of received) expect(verifies([old.secret, rotated.secret!], r)).toBe(true);
});

it('refuses a switch time in the past by name, and switches at once with switchAfter: 0', async () => {
  const app = id('app');
  const token = await h.tokenFor(app);
  const { connectionId } = await h.createVia(app, token);
  const path = appPath(app, `/connections/${connectionId}/secret/rotate`);
  const past = await h.call('POST', path, { token, json: { switchAt: '2020-01-01T00:00:00Z' } });
  expect(past.status).toBe(422);
  expect(past.body.error).toMatchObject({
    field: 'switchAt',
    message: expect.stringContaining('in the past'),
  });
  const now = await h.call('POST', path, { token, json: { switchAfter: 0 } });
  expect(now.status).toBe(200);
  const shown = await h.call('GET', appPath(app, `/connections/${connectionId}/secret`), { token });
  expect(shown.body).toEqual({ secret: now.body.secret, secretVersion: now.body.secretVersion });
});
