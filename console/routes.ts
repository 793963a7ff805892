/**
 * Routes live in the URL fragment (`#/connections/con_…`): the API serves one index.html at
 * /console/, and the fragment never reaches a server or its logs.
 */

export type Route =
  | { page: 'connections' }
  | { page: 'new-connection' }
  | { page: 'connection'; connectionId: string }
  | { page: 'delivery'; deliveryId: string; connectionId?: string }
  | { page: 'not-found'; path: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '' || path === '/' || path === '/connections') return { page: 'connections' };
  if (path === '/connections/new') return { page: 'new-connection' };
  const connection = /^\/connections\/([^/?]+)$/.exec(path);
  if (connection) return { page: 'connection', connectionId: decodeURIComponent(connection[1]!) };
  const delivery = /^\/deliveries\/([^/?]+)(?:\?connection=([^&]+))?$/.exec(path);
  if (delivery) {
    const route: Route = { page: 'delivery', deliveryId: decodeURIComponent(delivery[1]!) };
    if (delivery[2]) route.connectionId = decodeURIComponent(delivery[2]);
    return route;
  }
  return { page: 'not-found', path };
}

export const href = {
  connections: () => '#/connections',
  newConnection: () => '#/connections/new',
  connection: (id: string) => `#/connections/${encodeURIComponent(id)}`,
  delivery: (id: string, connectionId?: string) =>
    `#/deliveries/${encodeURIComponent(id)}${connectionId ? `?connection=${encodeURIComponent(connectionId)}` : ''}`,
};
