/**
 * docs/protocol.md's Node and Python verifiers on real deliveries: a connection made and its
 * secret read as a customer does (the management library: create, Show Secret), then a published
 * event delivered by the dispatcher on the local pipeline and a Send Test, each captured byte for
 * byte by an HTTPS receiver on loopback.
 */

import type { IncomingHttpHeaders } from 'node:http';
import { WebhookManagement } from '../../lambdas/management';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { testPki } from '../support/pki';
import { casesFor, type Delivery, docBlock, expected, runDocVerifiers } from '../support/protocol-doc';
import { type ServedHttps, serveHttps } from '../support/receivers';
import { resourcesFromEnv } from '../support/resources';
import { waitFor } from '../support/wait';

interface Captured {
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** When it arrived, Unix ms: the receiver's clock for the checks. */
  at: number;
}

let receiver: ServedHttps;
const captured: Captured[] = [];
let harness: Harness;
let management: WebhookManagement;

beforeAll(async () => {
  receiver = await serveHttps(testPki(), (req, res, body) => {
    captured.push({ headers: req.headers, body, at: Date.now() });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
  harness = await startHarness({ ports: [receiver.port] });
  management = new WebhookManagement({
    resources: resourcesFromEnv(),
    allowLoopback: true,
    allowedPorts: [receiver.port],
    ca: [testPki().caPem],
  });
});

afterAll(async () => {
  await harness?.stop();
  await receiver?.close();
});

/** The checks' cases for a captured request, with the secret Show Secret gave, at its arrival. */
function casesOf(request: Captured, secret: string) {
  const delivery: Delivery = {
    secret,
    timestamp: String(request.headers['x-service-timestamp']),
    signature: String(request.headers['x-service-signature']),
    body: request.body,
  };
  return casesFor(delivery, request.at - Number(delivery.timestamp));
}

async function connectionWithSecret(applicationId: string) {
  const connection = await management.connections.create({
    applicationId,
    name: 'Protocol page',
    url: `https://127.0.0.1:${receiver.port}/hooks?tenant=7`,
  });
  const { secret } = await management.connections.showSecret(connection.connectionId);
  return { connectionId: connection.connectionId, secret };
}

function requestFor(connectionId: string): Captured | undefined {
  return captured.find((r) => String(r.headers['x-service-delivery']).endsWith(`_${connectionId}`));
}

describe("docs/protocol.md's verification code on real deliveries", () => {
  it('verifies a published event the dispatcher delivered, and refuses it changed, with a wrong secret or stale', async () => {
    const app = id('app');
    const { connectionId, secret } = await connectionWithSecret(app);
    const event = userIdentified(app);
    // UTF-8 beyond ASCII: the signature covers the bytes. (No character beyond U+FFFF: fauxqs refuses
    // those, though SQS takes them.)
    event.user.name = 'Zoë Åberg';
    await harness.publish(event);
    const request = await waitFor('the delivery at the receiver', () => requestFor(connectionId), {
      timeoutMs: 20_000,
    });
    expect(request.headers['x-service-attempt']).toBe('1');

    const cases = casesOf(request, secret);
    const answers = runDocVerifiers(cases);
    expect(answers.node).toEqual(expected(cases));
    expect(answers.python).toEqual(expected(cases));
  });

  it('verifies a Send Test, whose body is the test event the page shows', async () => {
    const { connectionId, secret } = await connectionWithSecret(id('app'));
    const record = await management.sendTest(connectionId);
    expect(record.outcome).toBe('delivered');
    const request = requestFor(connectionId)!;
    const shown = JSON.parse(docBlock('test-event')) as {
      user: unknown;
      application: { id: string; name: string };
    };
    const sent = JSON.parse(request.body.toString('utf8')) as typeof shown;
    expect(Object.keys(sent.user as object)).toEqual(Object.keys(shown.user as object));
    // A new application, no event of it kept yet: named by its id, as the page's example is.
    expect(shown.application.name).toBe(shown.application.id);
    expect(sent.application.name).toBe(sent.application.id);

    const cases = casesOf(request, secret);
    const answers = runDocVerifiers(cases);
    expect(answers.node).toEqual(expected(cases));
    expect(answers.python).toEqual(expected(cases));
  });
});
