import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Loopback only: the emulators have no authentication, so they never listen on a shared interface. */
export const LOCAL_HOST = '127.0.0.1';

/** The names a request to this machine's loopback carries in `Host`, with or without a port. */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;

/**
 * Whether a request was addressed to loopback by name (`Host: 127.0.0.1:8790`, `localhost`,
 * `[::1]:8790`). Listening on 127.0.0.1 keeps other machines out but not a web page in this
 * machine's browser: a site whose name its owner re-points at 127.0.0.1 (DNS rebinding) may read
 * the answers as its own. Such a request still carries the site's name in `Host`, so the local
 * servers refuse every other name.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host);
}

/**
 * Answers a request not addressed to loopback with 421 (Misdirected Request) and returns true;
 * otherwise does nothing and returns false. The body is the API's error shape.
 */
export function refuseForeignHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (isLoopbackHost(req.headers.host)) return false;
  const message =
    'This local server answers only requests addressed to 127.0.0.1, localhost or [::1]; open it by one of those names.';
  res
    .writeHead(421, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
    .end(`${JSON.stringify({ error: { code: 'misdirected_request', message } })}\n`);
  return true;
}

/**
 * Starts `server` on `host:port` (port 0 = any free port) and returns its `http://` origin.
 * Rejects instead of hanging when the port is taken.
 */
export function listen(server: Server, port = 0, host = LOCAL_HOST): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${hostPart}:${address.port}`);
    });
  });
}

/** Closes `server`, dropping idle keep-alive connections so the close does not wait for clients. */
export function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) return resolve();
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
