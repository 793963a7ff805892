import type { ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import {
  DEFAULT_IDLE_PER_ORIGIN,
  HttpsSender,
  type HttpsSenderOptions,
} from '../../lambdas/adapters/http/sender';
import { SNIPPET_READ_BYTES } from '../../lambdas/core/constants';
import type { OutboundRequest } from '../../lambdas/core/types';
import { startTripwire } from '../security/helpers';
import { testPki } from '../support/pki';
import { type Receiver, respond, serveHttps, startReceiver } from '../support/receivers';

const local = { allowedPorts: [443], allowLoopback: true };
let receiver: Receiver;
let sender: HttpsSender;

function request(url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest {
  return {
    method: 'POST',
    url: new URL(url),
    headers: { 'Content-Type': 'application/json', 'X-Service-Event': 'user.identified' },
    body: '{"event":"user.identified"}',
    timeoutMs: 2_000,
    ...overrides,
  };
}

beforeAll(async () => {
  receiver = await startReceiver();
  sender = new HttpsSender({ egress: { ...local, allowedPorts: [receiver.port] }, ca: [testPki().caPem] });
});
afterAll(async () => {
  await sender.close();
  await receiver.close();
});

describe('HttpsSender against a real HTTPS receiver', () => {
  it('sends the method, headers and exact body, and reports a 2xx with the response snippet', async () => {
    receiver.behave(respond(200, '{"received":true}'));
    const result = await sender.send(request(receiver.url, { method: 'PUT' }));
    expect(result).toMatchObject({ kind: 'response', status: 200, snippet: '{"received":true}' });
    const got = receiver.requests.at(-1)!;
    expect(got.method).toBe('PUT');
    expect(got.body).toBe('{"event":"user.identified"}');
    expect(got.headers['x-service-event']).toBe('user.identified');
  });

  it('does not follow a redirect: a 302 is the result', async () => {
    const before = receiver.requests.length;
    receiver.behave((_req, res) => res.writeHead(302, { location: 'https://127.0.0.1:1/elsewhere' }).end());
    const result = await sender.send(request(receiver.url));
    expect(result).toMatchObject({ kind: 'response', status: 302 });
    expect(receiver.requests.length).toBe(before + 1);
  });

  it('reads at most the 1 KiB snippet plus the redaction margin of a large response and stops reading it', async () => {
    let written = 0;
    receiver.behave((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        // Up to 1 GB if the client kept reading; it must not.
        while (written < 1024 ** 3 && res.write(chunk)) written += chunk.length;
        if (written < 1024 ** 3 && !res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    const result = await sender.send(request(receiver.url, { timeoutMs: 10_000 }));
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    // The kept 1 KiB plus the redaction margin; the core cuts to 1 KiB after redacting.
    expect(result.kind === 'response' && Buffer.byteLength(result.snippet)).toBe(SNIPPET_READ_BYTES);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('times out a receiver that never answers, at the attempt deadline', async () => {
    receiver.behave(() => {
      /* never answer */
    });
    const result = await sender.send(request(receiver.url, { timeoutMs: 500 }));
    expect(result.kind).toBe('timeout');
    expect(result.durationMs).toBeGreaterThanOrEqual(450);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('times out a receiver that drips its response past the deadline', async () => {
    receiver.behave((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('.')), 50);
    });
    const result = await sender.send(request(receiver.url, { timeoutMs: 600 }));
    expect(result.kind).toBe('timeout');
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('reports a connection reset as a network error', async () => {
    receiver.behave((req, res) => {
      res.socket?.destroy();
      void req;
    });
    const result = await sender.send(request(receiver.url));
    expect(result.kind).toBe('network');
  });

  it('reports an untrusted certificate as a network error (TLS is verified)', async () => {
    receiver.behave(respond(200));
    const strict = new HttpsSender({ egress: { ...local, allowedPorts: [receiver.port] } });
    const result = await strict.send(request(receiver.url));
    await strict.close();
    expect(result.kind).toBe('network');
    expect(result.kind === 'network' && result.error).toMatch(/certificate|CERT|self.signed|issuer/i);
    // Node's advice about the dispatcher's own Node is no use to whoever reads the attempt log.
    expect(result.kind === 'network' && result.error).not.toMatch(/use-system-ca/);
  });

  it('reports a refused connection as a network error', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const s = new HttpsSender({ egress: { ...local, allowedPorts: [closed.port] }, ca: [testPki().caPem] });
    const result = await s.send(request(url));
    await s.close();
    expect(result).toMatchObject({ kind: 'network', error: expect.stringContaining('ECONNREFUSED') });
  });

  it('connects to the address its own lookup checked (a stub resolver name reaches the receiver)', async () => {
    receiver.behave(respond(204, ''));
    const s = new HttpsSender({
      egress: { ...local, allowedPorts: [receiver.port] },
      ca: [testPki().caPem],
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await s.send(request(`https://localhost:${receiver.port}/hooks`));
    await s.close();
    expect(result).toMatchObject({ kind: 'response', status: 204 });
  });

  it('keeps the connection to a receiver for the next delivery (keep-alive pool)', async () => {
    const ports: number[] = [];
    receiver.behave((_req, res) => {
      ports.push(res.socket!.remotePort!);
      res.writeHead(200).end('ok');
    });
    for (let i = 0; i < 3; i++)
      expect(await sender.send(request(receiver.url))).toMatchObject({ kind: 'response', status: 200 });
    expect(new Set(ports).size).toBe(1);
  });

  it('resumes the TLS session of each of more origins than Node keeps by default on a new connection (D41)', async () => {
    // 120 origins (Node's agent keeps 100 sessions), each closing every connection after its
    // response, so each round opens a new TLS connection to every one of them.
    const origins = await Promise.all(
      Array.from({ length: 120 }, () =>
        serveHttps(testPki(), (_req, res) => res.writeHead(200, { connection: 'close' }).end('ok')),
      ),
    );
    const handshakes = { full: 0, resumed: 0 };
    for (const o of origins)
      o.server.on('secureConnection', (socket: TLSSocket) => {
        if (socket.isSessionReused()) handshakes.resumed++;
        else handshakes.full++;
      });
    const own = new HttpsSender({
      egress: { allowLoopback: true, allowedPorts: origins.map((o) => o.port) },
      ca: [testPki().caPem],
    });
    try {
      for (let round = 0; round < 2; round++)
        for (const o of origins)
          expect(await own.send(request(`https://127.0.0.1:${o.port}/`))).toMatchObject({ status: 200 });
      expect(handshakes).toEqual({ full: origins.length, resumed: origins.length });
    } finally {
      await own.close();
      await Promise.all(origins.map((o) => o.close()));
    }
  });

  describe('a pooled socket the receiver has closed (decisions.md D31)', () => {
    /** A sender of its own, so the pool holds only what each test put in it. */
    const fresh = (options: Partial<HttpsSenderOptions> = {}) =>
      new HttpsSender({
        egress: { ...local, allowedPorts: [receiver.port] },
        ca: [testPki().caPem],
        ...options,
      });

    it('sends the request again on another connection, within the attempt, when its pooled socket is dead', async () => {
      const s = fresh();
      const ports: number[] = [];
      const answered = new WeakSet<object>();
      // A receiver whose idle timeout closed each connection after one response, just as the
      // next request arrived on it (the race of docs/design.md §4 "The sender").
      receiver.behave((_req, res) => {
        const socket = res.socket!;
        ports.push(socket.remotePort!);
        if (answered.has(socket)) {
          socket.destroy();
          return;
        }
        answered.add(socket);
        res.writeHead(200).end('ok');
      });
      try {
        expect(await s.send(request(receiver.url))).toMatchObject({ kind: 'response', status: 200 });
        expect(await s.send(request(receiver.url))).toMatchObject({
          kind: 'response',
          status: 200,
          snippet: 'ok',
        });
        // The second delivery: its pooled connection (dead), then a new one.
        expect(ports).toHaveLength(3);
        expect(ports[1]).toBe(ports[0]);
        expect(ports[2]).not.toBe(ports[0]);
      } finally {
        await s.close();
      }
    });

    it('does not send again a request that failed on a new connection', async () => {
      const s = fresh();
      let requests = 0;
      receiver.behave((_req, res) => {
        requests++;
        res.socket!.destroy();
      });
      try {
        expect((await s.send(request(receiver.url))).kind).toBe('network');
        expect(requests).toBe(1);
      } finally {
        await s.close();
      }
    });

    /** A sender of its own with one connection pooled, then the receiver's next behaviour, its requests counted. */
    async function pooledThen(next: (res: ServerResponse) => void) {
      const s = fresh();
      receiver.behave(respond(200, 'ok'));
      expect(await s.send(request(receiver.url))).toMatchObject({ kind: 'response', status: 200 });
      const seen = { requests: 0 };
      receiver.behave((_req, res) => {
        seen.requests++;
        next(res);
      });
      return { s, seen };
    }

    it('stops at the first new connection: a receiver that resets everything gets two requests, not more', async () => {
      const { s, seen } = await pooledThen((res) => res.socket!.destroy());
      try {
        const result = await s.send(request(receiver.url));
        expect(result.kind).toBe('network');
        expect(result.kind === 'network' && result.error).toMatch(/ECONNRESET|socket hang up/);
        expect(seen.requests).toBe(2);
      } finally {
        await s.close();
      }
    });

    it('does not send again a request the receiver answered, even with a 101 that closes the pooled socket', async () => {
      const { s, seen } = await pooledThen((res) =>
        res.socket!.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n'),
      );
      try {
        expect((await s.send(request(receiver.url, { timeoutMs: 5_000 }))).kind).toBe('network');
        expect(seen.requests).toBe(1);
      } finally {
        await s.close();
      }
    });

    /**
     * `n` requests at once, each answered after 50 ms: `n` connections, every one of them 200,
     * of which the pool then keeps its idle limit. The connections the receiver saw.
     */
    async function openAtOnce(s: HttpsSender, n: number): Promise<Set<object>> {
      const sockets = new Set<object>();
      receiver.behave((_req, res) => {
        sockets.add(res.socket!);
        setTimeout(() => res.writeHead(200).end('ok'), 50);
      });
      const first = await Promise.all(Array.from({ length: n }, () => s.send(request(receiver.url))));
      expect(first.every((r) => r.kind === 'response' && r.status === 200)).toBe(true);
      expect(sockets.size).toBe(n);
      return sockets;
    }

    it('sends again at most as many times as the pool keeps idle connections, then the try on a new one is final', async () => {
      const s = fresh();
      try {
        // More connections than the pool keeps (DEFAULT_IDLE_PER_ORIGIN).
        const sockets = await openAtOnce(s, DEFAULT_IDLE_PER_ORIGIN + 3);
        const onPooled: boolean[] = [];
        receiver.behave((_req, res) => {
          onPooled.push(sockets.has(res.socket!));
          res.socket!.destroy();
        });
        expect((await s.send(request(receiver.url))).kind).toBe('network');
        // Every pooled connection once, then one new connection: never a loop.
        expect(onPooled).toEqual([...Array(DEFAULT_IDLE_PER_ORIGIN).fill(true), false]);
      } finally {
        await s.close();
      }
    });

    it('reaches a new connection when every pooled one is dead, however many requests ran at once (maxIdlePerOrigin)', async () => {
      const s = fresh({ maxIdlePerOrigin: 3 });
      try {
        const old = await openAtOnce(s, 8);
        // A NAT forgot every connection: each old one is reset, a new one is answered.
        const onOld: boolean[] = [];
        receiver.behave((_req, res) => {
          onOld.push(old.has(res.socket!));
          if (old.has(res.socket!)) res.socket!.destroy();
          else res.writeHead(200).end('ok');
        });
        expect(await s.send(request(receiver.url))).toMatchObject({ kind: 'response', status: 200 });
        expect(onOld).toEqual([true, true, true, false]);
      } finally {
        await s.close();
      }
    });
  });

  it('gives up on a connection whose TLS set-up outlasts the connect timeout, before the attempt deadline', async () => {
    const silent = await startTripwire();
    const s = new HttpsSender({
      egress: { ...local, allowedPorts: [silent.port] },
      ca: [testPki().caPem],
      connectTimeoutMs: 300,
    });
    try {
      const result = await s.send(request(`https://127.0.0.1:${silent.port}/hooks`, { timeoutMs: 5_000 }));
      expect(result).toMatchObject({ kind: 'network', error: expect.stringContaining('ETIMEDOUT') });
      expect(result.durationMs).toBeLessThan(2_000);
      expect(silent.connections).toBe(1);
    } finally {
      await s.close();
      await silent.close();
    }
  });

  it.each(['Content-Length', 'transfer-encoding', 'Host', 'Connection', 'Proxy-Authorization'])(
    'refuses a framing header (%s) without sending anything, whoever its caller',
    async (name) => {
      const before = receiver.requests.length;
      const result = await sender.send(
        request(receiver.url, { headers: { 'Content-Type': 'application/json', [name]: '1' } }),
      );
      expect(result).toMatchObject({ kind: 'network', error: expect.stringContaining(`header ${name}`) });
      expect(receiver.requests.length).toBe(before);
    },
  );

  it('ends an attempt answered with an unasked-for 101 at once, as a network error', async () => {
    receiver.behave((_req, res) => {
      res.socket!.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n');
    });
    const result = await sender.send(request(receiver.url, { timeoutMs: 5_000 }));
    expect(result.kind).toBe('network');
    expect(result.durationMs).toBeLessThan(2_000);
  });
});
