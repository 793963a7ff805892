/**
 * Adversarial suite, connect time: the HttpsSender resolves a name once, refuses the whole
 * destination if any address is refused, and connects to the address it checked. IP
 * literals never reach `lookup`: the sender's connector checks them, with the scheme and
 * port, as it opens the socket, so nothing reaches the wire. Redirects are not
 * followed and TLS is verified.
 *
 * Loopback only: 127.0.0.1 plays every address a test lets through. Every refusal is proved
 * by a real HTTPS receiver that counts requests or a TCP tripwire that counts connections,
 * next to a control showing the same set-up does reach them when the policy allows it.
 */

import { execFile } from 'node:child_process';
import { createServer } from 'node:https';
import * as path from 'node:path';
import { egressLookup } from '../../lambdas/adapters/http/pool';
import { HttpsSender } from '../../lambdas/adapters/http/sender';
import { validateUrl } from '../../lambdas/core/connection';
import type { EgressPolicy } from '../../lambdas/core/egress';
import { ROOT_DIR } from '../support/child';
import { testPki } from '../support/pki';
import { type Receiver, respond, startReceiver } from '../support/receivers';
import { AWS_POLICY, outbound, senderFor, startTripwire, stubResolver, type Tripwire } from './helpers';

let receiver: Receiver;
let tripwire: Tripwire;
const senders: HttpsSender[] = [];

/** A sender that the suite closes after each test. */
function sender(...args: Parameters<typeof senderFor>): HttpsSender {
  const s = senderFor(...args);
  senders.push(s);
  return s;
}

/** The deployed policy, with the test receivers' ports allowed in place of 443. */
function deployed(...ports: number[]): EgressPolicy {
  return { allowedPorts: ports, allowLoopback: false };
}
function local(...ports: number[]): EgressPolicy {
  return { allowedPorts: ports, allowLoopback: true };
}

beforeEach(async () => {
  receiver = await startReceiver(respond(200));
  tripwire = await startTripwire();
});
afterEach(async () => {
  await tripwire.close();
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await receiver.close();
});

describe('a host name that resolves to {public, 10.0.0.5}', () => {
  it('is refused by the lookup hook whichever order the addresses come in, with one or all answers asked', async () => {
    const ask = (answer: string[], all: boolean) =>
      new Promise<Error | null>((resolve) =>
        egressLookup(AWS_POLICY, stubResolver(answer))('hooks.example.com', { all }, (error) =>
          resolve(error),
        ),
      );
    for (const answer of [
      ['93.184.216.34', '10.0.0.5'],
      ['10.0.0.5', '93.184.216.34'],
      ['2606:2800:220:1:248:1893:25c8:1946', '93.184.216.34', '10.0.0.5'],
    ]) {
      for (const all of [false, true]) {
        const error = await ask(answer, all);
        expect(error).toMatchObject({
          name: 'EgressRefusedError',
          message:
            'hooks.example.com resolves to a refused address: 10.0.0.5 is in the refused range 10.0.0.0/8',
        });
      }
    }
  });

  it('is blocked before any connection, even when its other address is reachable', async () => {
    // 127.0.0.1 stands in for the public address: local mode allows it, so only 10.0.0.5 is
    // refused. It comes first, so a sender that checked less than every address would
    // connect to the tripwire (and never leave loopback); the order is covered above.
    const s = sender(local(tripwire.port), stubResolver(['127.0.0.1', '10.0.0.5']));
    const result = await s.send(outbound(`https://receiver.test:${tripwire.port}/hooks`));
    expect(result).toMatchObject({
      kind: 'blocked',
      error: 'receiver.test resolves to a refused address: 10.0.0.5 is in the refused range 10.0.0.0/8',
    });
    expect(tripwire.connections).toBe(0);
  });

  it('control: the same name resolving to the reachable address alone is delivered', async () => {
    const s = sender(local(receiver.port), stubResolver(['127.0.0.1']));
    const result = await s.send(outbound(`https://receiver.test:${receiver.port}/hooks`));
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('DNS rebinding: public when saved, 127.0.0.1 when delivered', () => {
  it('is accepted at save time, then blocked at delivery without a connection or a request', async () => {
    const url = `https://receiver.test:${receiver.port}/hooks`;
    // Save time: a name, not an IP literal, so the URL rules accept it.
    expect(validateUrl(url, deployed(receiver.port)).hostname).toBe('receiver.test');
    // Delivery: DNS now answers 127.0.0.1.
    const resolver = stubResolver(['127.0.0.1']);
    const result = await sender(deployed(receiver.port), resolver).send(outbound(url));
    expect(result).toMatchObject({
      kind: 'blocked',
      error: 'receiver.test resolves to a refused address: 127.0.0.1 is in the refused range 127.0.0.0/8',
    });
    expect(resolver.calls).toEqual(['receiver.test']);
    expect(receiver.requests).toHaveLength(0);
  });

  it('never opens a socket to the rebound address', async () => {
    const s = sender(deployed(tripwire.port), stubResolver(['127.0.0.1']));
    const result = await s.send(outbound(`https://receiver.test:${tripwire.port}/hooks`));
    expect(result.kind).toBe('blocked');
    expect(tripwire.connections).toBe(0);
  });

  it('connects to the address it checked: a second, different answer is never asked for', async () => {
    // First answer allowed (local mode), every later one refused: a check-then-connect
    // sender that resolved twice would fail or reach 10.0.0.5.
    const resolver = stubResolver(['127.0.0.1'], ['10.0.0.5']);
    const s = sender(local(receiver.port), resolver);
    const result = await s.send(outbound(`https://receiver.test:${receiver.port}/hooks`));
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(resolver.calls).toEqual(['receiver.test']);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('IP literals, which never reach the lookup hook', () => {
  // Each of these is this machine: let through, it would reach the tripwire on 127.0.0.1 or
  // another loopback socket (0.0.0.0 and :: mean "this host" to Linux). The other refused
  // literals (metadata, NAT64, 6to4…) go through the same check; they are proved at save
  // time and at the dispatch re-check, so that a broken check never sends a packet off loopback.
  it.each([
    'https://127.0.0.1:PORT/hooks',
    'https://2130706433:PORT/hooks',
    'https://0x7f.1:PORT/hooks',
    'https://0177.0.0.1:PORT/hooks',
    'https://127.1:PORT/hooks',
    'https://0.0.0.0:PORT/hooks',
    'https://0:PORT/hooks',
    'https://[::ffff:127.0.0.1]:PORT/hooks',
    'https://[::]:PORT/hooks',
    'https://[::1]:PORT/hooks',
  ])('blocks %s at connect time, without resolving or connecting', async (template) => {
    const url = template.replace('PORT', String(tripwire.port));
    const resolver = stubResolver(['127.0.0.1']);
    const result = await sender(deployed(tripwire.port), resolver).send(outbound(url));
    expect(result).toMatchObject({ kind: 'blocked', error: expect.stringContaining('refused range') });
    expect(resolver.calls).toEqual([]);
    expect(tripwire.connections).toBe(0);
  });

  it('control: 127.0.0.1 is delivered when local mode allows loopback, and 0.0.0.0 still is not', async () => {
    const s = sender(local(receiver.port));
    expect(await s.send(outbound(`https://127.0.0.1:${receiver.port}/hooks`))).toMatchObject({
      kind: 'response',
      status: 200,
    });
    expect(await s.send(outbound(`https://0.0.0.0:${receiver.port}/hooks`))).toMatchObject({
      kind: 'blocked',
      error: '0.0.0.0 is in the refused range 0.0.0.0/8',
    });
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('ports', () => {
  it('blocks :22 before resolving or connecting', async () => {
    const resolver = stubResolver(['127.0.0.1']);
    const result = await sender(AWS_POLICY, resolver).send(outbound('https://hooks.example.com:22/'));
    expect(result).toEqual({
      kind: 'blocked',
      durationMs: expect.any(Number),
      error: 'port 22 is not allowed (allowed: 443)',
    });
    expect(resolver.calls).toEqual([]);
  });

  it('blocks a port the policy does not list on any host but loopback, even in local mode', async () => {
    const resolver = stubResolver(['127.0.0.1']);
    const result = await sender(local(443), resolver).send(
      outbound(`https://receiver.test:${receiver.port}/hooks`),
    );
    expect(result).toMatchObject({
      kind: 'blocked',
      error: `port ${receiver.port} is not allowed (allowed: 443)`,
    });
    expect(resolver.calls).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
  });

  it('lets local mode reach any port on a loopback host (a new receiver needs no restart)', async () => {
    const before = receiver.requests.length;
    expect(await sender(local(443)).send(outbound(receiver.url))).toMatchObject({ kind: 'response' });
    expect(receiver.requests).toHaveLength(before + 1);
  });

  it('blocks a non-https URL that reached the sender', async () => {
    const result = await sender(local(receiver.port)).send(outbound(`http://127.0.0.1:${receiver.port}/`));
    expect(result).toMatchObject({
      kind: 'blocked',
      error: 'scheme http: is refused; only https: is delivered',
    });
  });
});

describe('redirects to a private address', () => {
  let target: Receiver;
  beforeEach(async () => {
    target = await startReceiver(respond(200, 'internal'));
  });
  afterEach(() => target.close());

  it.each([302, 307])(
    'does not follow a %i: the status is the result and only one request is made',
    async (status) => {
      const s = sender(local(receiver.port, target.port));
      for (const location of [
        `https://127.0.0.1:${target.port}/admin`,
        'https://169.254.169.254/latest/meta-data/',
        'https://10.0.0.5/',
      ]) {
        receiver.behave((_req, res) => res.writeHead(status, { location }).end());
        const result = await s.send(outbound(receiver.url));
        expect(result).toMatchObject({ kind: 'response', status });
      }
      expect(receiver.requests).toHaveLength(3);
      expect(target.requests).toHaveLength(0);
    },
  );
});

describe('TLS', () => {
  it('refuses a certificate from an untrusted authority: network error, no request', async () => {
    const strict = new HttpsSender({ egress: local(receiver.port) });
    senders.push(strict);
    const result = await strict.send(outbound(receiver.url));
    expect(result.kind).toBe('network');
    expect(result.kind === 'network' && result.error).toMatch(/certificate|CERT/i);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a certificate issued for another name: network error, no request', async () => {
    const s = sender(local(receiver.port), stubResolver(['127.0.0.1']));
    const result = await s.send(outbound(`https://other.example:${receiver.port}/hooks`));
    expect(result.kind).toBe('network');
    expect(result.kind === 'network' && result.error).toMatch(/altnames|ERR_TLS_CERT_ALTNAME_INVALID/i);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a receiver that offers nothing newer than TLS 1.1: network error, no request', async () => {
    const pki = testPki();
    let requests = 0;
    const old = createServer(
      {
        key: pki.keyPem,
        cert: pki.certPem,
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      },
      (_req, res) => {
        requests++;
        res.end('ok');
      },
    );
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    const { port } = old.address() as { port: number };
    try {
      const result = await sender(local(port)).send(outbound(`https://127.0.0.1:${port}/hooks`));
      expect(result.kind).toBe('network');
      expect(requests).toBe(0);
    } finally {
      old.closeAllConnections();
      await new Promise<void>((resolve) => old.close(() => resolve()));
    }
  });
});

describe('header values the sender itself cannot send', () => {
  // Refused at save time and at dispatch (save-time-headers, dispatcher); the sender is the last line.
  it.each([
    ['CR/LF in a value', { 'X-Tenant': 'a\r\nX-Injected: 1' }],
    ['CR/LF in a name', { 'X-A\r\nX-Injected': '1' }],
  ])('%s is refused before any connection: nothing reaches the wire', async (_, headers) => {
    const s = sender(local(tripwire.port));
    const result = await s.send(outbound(`https://127.0.0.1:${tripwire.port}/hooks`, { headers }));
    expect(result).toMatchObject({
      kind: 'network',
      error: expect.stringMatching(/ERR_INVALID_(CHAR|HTTP_TOKEN)/),
    });
    expect(tripwire.connections).toBe(0);
  });
});

describe('TLS and pooled connections', () => {
  it('verifies each host name: a pooled connection to the same address is not reused for another name', async () => {
    // Both names resolve to the receiver; its certificate covers receiver.test only.
    const s = sender(local(receiver.port), stubResolver(['127.0.0.1']));
    const good = await s.send(outbound(`https://receiver.test:${receiver.port}/hooks`));
    expect(good).toMatchObject({ kind: 'response', status: 200 });
    const other = await s.send(outbound(`https://other.example:${receiver.port}/hooks`));
    expect(other.kind).toBe('network');
    expect(other.kind === 'network' && other.error).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('the environment', () => {
  it('cannot route the sender through a proxy or turn off TLS verification, and an open sender lets its process exit', async () => {
    // The tripwire plays the proxy: any connection through it would be counted. Jest's
    // process.env is a copy Node never reads, so this runs in a process of its own.
    const proxy = `http://127.0.0.1:${tripwire.port}`;
    const urls = [
      `https://127.0.0.1:${receiver.port}/hooks`,
      `https://receiver.test:${receiver.port}/hooks`,
      `https://blocked.test:${receiver.port}/hooks`,
      `strict:https://127.0.0.1:${receiver.port}/hooks`,
    ];
    const started = Date.now();
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', path.join(__dirname, 'sender-process.ts'), String(receiver.port), ...urls],
        {
          cwd: ROOT_DIR,
          // Killed only if it hangs: exiting on its own is part of what is checked.
          timeout: 20_000,
          env: {
            ...process.env,
            TEST_CA_PEM: testPki().caPem,
            NODE_USE_ENV_PROXY: '1',
            HTTPS_PROXY: proxy,
            https_proxy: proxy,
            HTTP_PROXY: proxy,
            http_proxy: proxy,
            NO_PROXY: '',
            no_proxy: '',
            NODE_TLS_REJECT_UNAUTHORIZED: '0',
          },
        },
        (error, out) => (error ? reject(error) : resolve({ stdout: out })),
      ),
    );
    const results = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results).toEqual([
      expect.objectContaining({ kind: 'response', status: 200 }),
      expect.objectContaining({ kind: 'response', status: 200 }),
      expect.objectContaining({ kind: 'blocked' }),
      expect.objectContaining({ kind: 'network', error: expect.stringMatching(/certificate|CERT/i) }),
    ]);
    expect(receiver.requests).toHaveLength(2);
    expect(tripwire.connections).toBe(0);
    // Well within the 10 s connect limit: no pooled socket or connect timer held the process.
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
