/**
 * docs/protocol.md's verification code and examples, held to what the dispatcher's own code
 * produces: the Node and Python verifiers of the page run (as a reader would run them) on a
 * delivery signed by the core's header builder, and the page's worked example and example bodies
 * are checked against the signing and payload code. The same verifiers run on a real delivery in
 * test/integration/protocol-doc.test.ts.
 */

import { DEFAULT_HEADER_PREFIX } from '../../lambdas/core/constants';
import { buildHeaders, serviceHeaderNames } from '../../lambdas/core/headers';
import { deliveryIdFor } from '../../lambdas/core/ids';
import { buildPayload, checkBody, serialiseBody } from '../../lambdas/core/payload';
import { sign } from '../../lambdas/core/signing';
import type { Connection } from '../../lambdas/core/types';
import { generateSecret } from '../../lambdas/management/connections';
import { testPayloadBody } from '../../lambdas/management/test-send';
import { verifyWebhook } from '../../lambdas/receiver';
import { id } from '../support/fixtures';
import {
  casesFor,
  type Delivery,
  docBlock,
  docVector,
  expected,
  runDocVerifiers,
} from '../support/protocol-doc';

/** A delivery as the dispatcher signs it: the core's payload, serialisation and header builder. */
function signedDelivery(): Delivery {
  const eventId = id('evt');
  const connectionId = id('con');
  const occurredAt = new Date().toISOString();
  const body = serialiseBody(
    buildPayload({
      timestamp: occurredAt,
      // Characters beyond ASCII: the signature covers UTF-8 bytes, not UTF-16 code units.
      user: {
        id: id('usr'),
        email: 'zoe@example.com',
        name: 'Zoë Åberg 🚀',
        metadata: { plan: 'pro', seats: 3 },
      },
      application: { id: id('app'), name: 'Acme Extension' },
    }),
  );
  const secret = generateSecret();
  const headers = buildHeaders({
    prefix: DEFAULT_HEADER_PREFIX,
    secret,
    body,
    timestampMs: Date.now(),
    deliveryId: deliveryIdFor(eventId, connectionId, Date.parse(occurredAt)),
    attempt: 1,
    custom: {},
  });
  const names = serviceHeaderNames(DEFAULT_HEADER_PREFIX);
  return {
    secret,
    timestamp: headers[names.timestamp]!,
    signature: headers[names.signature]!,
    body: Buffer.from(body, 'utf8'),
  };
}

describe("docs/protocol.md's verification code", () => {
  it('accepts a delivery signed by the dispatcher, and refuses it changed, with a wrong secret or stale', () => {
    const cases = casesFor(signedDelivery(), 250);
    const answers = runDocVerifiers(cases);
    expect(answers.node).toEqual(expected(cases));
    expect(answers.python).toEqual(expected(cases));
  });

  it('answers as verifyWebhook does on the same cases', () => {
    const cases = casesFor(signedDelivery(), 250);
    const byVerifyWebhook = Object.fromEntries(
      cases.map((c) => {
        const headers = { 'x-service-timestamp': c.timestamp, 'x-service-signature': c.signature };
        try {
          verifyWebhook({ rawBody: c.body, headers, secret: c.secret, now: c.now });
          return [c.name, true];
        } catch {
          return [c.name, false];
        }
      }),
    );
    expect(byVerifyWebhook).toEqual(expected(cases));
  });

  it("accepts the page's worked example, whose signature is the signing code's", () => {
    const vector = docVector();
    expect(sign(vector.secret, vector.timestamp, vector.body)).toBe(vector.signature);
    const cases = casesFor({ ...vector, body: Buffer.from(vector.body, 'utf8') });
    const answers = runDocVerifiers(cases);
    expect(answers.node).toEqual(expected(cases));
    expect(answers.python).toEqual(expected(cases));
  });
});

describe("docs/protocol.md's examples", () => {
  it('shows a body as the dispatcher serialises it (§2), the one the worked example signs', () => {
    const body = docBlock('body');
    expect(checkBody(body)).toEqual(JSON.parse(body));
    expect(body).toBe(docVector().body);
  });

  it('shows the test event Send Test sends (§9)', () => {
    const shown = docBlock('test-event');
    const payload = JSON.parse(shown) as { timestamp: string; application: { id: string } };
    const connection = { applicationId: payload.application.id } as Connection;
    expect(shown).toBe(testPayloadBody(connection, new Date(payload.timestamp)));
  });
});
