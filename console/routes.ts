/**
 * Routes live in the URL fragment (`#/connections/con_…`): the API serves one index.html at
 * /console/, and the fragment never reaches a server or its logs.
 */

export type Route =
  | { page: 'connections' }
  | { page: 'new-connection' }
  | { page: 'connection'; connectionId: string }
  | { page: 'delivery'; deliveryId: string; connectionId?: string }
  | { page: 'deliveries'; userId?: string; eventId?: string; connectionId?: string }
  | { page: 'not-found'; path: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '' || path === '/' || path === '/connections') return { page: 'connections' };
  if (path === '/connections/new') return { page: 'new-connection' };
  const connection = /^\/connections\/([^/?]+)$/.exec(path);
  if (connection) return { page: 'connection', connectionId: decodeURIComponent(connection[1]!) };
  const deliveries = /^\/deliveries(?:\?(.*))?$/.exec(path);
  if (deliveries) return deliveriesRoute(new URLSearchParams(deliveries[1] ?? ''));
  const delivery = /^\/deliveries\/([^/?]+)(?:\?connection=([^&]+))?$/.exec(path);
  if (delivery) {
    const route: Route = { page: 'delivery', deliveryId: decodeURIComponent(delivery[1]!) };
    if (delivery[2]) route.connectionId = decodeURIComponent(delivery[2]);
    return route;
  }
  return { page: 'not-found', path };
}

/** The deliveries list narrowed by its query (`?user=…`, `?event=…`, `?connection=…`). */
function deliveriesRoute(params: URLSearchParams): Route {
  const route: Route = { page: 'deliveries' };
  const userId = params.get('user');
  const eventId = params.get('event');
  const connectionId = params.get('connection');
  if (userId) route.userId = userId;
  if (eventId) route.eventId = eventId;
  if (connectionId) route.connectionId = connectionId;
  return route;
}

export const href = {
  connections: () => '#/connections',
  newConnection: () => '#/connections/new',
  connection: (id: string) => `#/connections/${encodeURIComponent(id)}`,
  deliveries: (by: { userId?: string; eventId?: string; connectionId?: string } = {}) => {
    const params = new URLSearchParams();
    if (by.userId) params.set('user', by.userId);
    if (by.eventId) params.set('event', by.eventId);
    if (by.connectionId) params.set('connection', by.connectionId);
    const text = params.toString();
    return `#/deliveries${text ? `?${text}` : ''}`;
  },
  delivery: (id: string, connectionId?: string) =>
    `#/deliveries/${encodeURIComponent(id)}${connectionId ? `?connection=${encodeURIComponent(connectionId)}` : ''}`,
};
