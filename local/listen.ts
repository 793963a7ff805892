import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Loopback only: the emulators have no authentication, so they never listen on a shared interface. */
export const LOCAL_HOST = '127.0.0.1';

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
