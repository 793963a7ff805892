/** The checked copy docs/openapi.json is the document the routes generate (`npm run openapi` refreshes it). */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiDocument } from '../../../lambdas/api/openapi';

const CHECKED_COPY = join(__dirname, '..', '..', '..', 'docs', 'openapi.json');

describe('OpenAPI document', () => {
  const live = apiDocument();

  it('matches the checked copy in docs/openapi.json (run `npm run openapi` after changing a route)', () => {
    expect(JSON.parse(readFileSync(CHECKED_COPY, 'utf8'))).toEqual(JSON.parse(JSON.stringify(live)));
  });

  it('is OpenAPI 3.1 with every route of docs/design.md §8 (the §9 ones included), each behind the session scheme', () => {
    expect(live.openapi).toBe('3.1.0');
    const base = '/api/v1/applications/{applicationId}';
    const operations = Object.entries(live.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path.replace(base, '')}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /connections',
        'POST /connections',
        'GET /connections/{connectionId}',
        'PATCH /connections/{connectionId}',
        'DELETE /connections/{connectionId}',
        'GET /connections/{connectionId}/secret',
        'POST /connections/{connectionId}/secret/rotate',
        'POST /connections/{connectionId}/test',
        'GET /connections/{connectionId}/attempts',
        'GET /connections/{connectionId}/stats',
        'GET /connections/{connectionId}/rate-limit',
        'GET /deliveries',
        'GET /deliveries/{deliveryId}',
        'GET /failures',
        'GET /connections/{connectionId}/parked',
        'POST /connections/{connectionId}/recover',
        'POST /deliveries/{deliveryId}/resend',
        'POST /deliveries/{deliveryId}/retry',
        'GET /api/v1',
      ].sort(),
    );
    expect(live.security).toEqual([{ session: [] }]);
    expect(live.components?.securitySchemes?.session).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the error shape on every operation behind the session; only the index is open', () => {
    const open: string[] = [];
    for (const [path, item] of Object.entries(live.paths ?? {})) {
      for (const op of Object.values(
        item as Record<string, { responses: Record<string, unknown>; security?: unknown[] }>,
      )) {
        if (op.security?.length === 0) open.push(path);
        else expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '404']));
      }
    }
    expect(open).toEqual(['/api/v1']);
  });

  it('names its licence and its tags, each described, and every tag an operation uses is listed', () => {
    expect(live.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    const listed = (live.tags ?? []).map((t) => t.name);
    expect(live.tags?.every((t) => (t.description ?? '').length > 0)).toBe(true);
    const used = Object.values(live.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { tags?: string[] }>).flatMap((op) => op.tags ?? []),
    );
    expect([...new Set(used)].sort()).toEqual([...listed].sort());
  });

  it('lists 413 on every POST and PATCH (each passes the body limit) and the Location of a created connection', () => {
    for (const [path, item] of Object.entries(live.paths ?? {})) {
      for (const [method, op] of Object.entries(
        item as Record<string, { responses: Record<string, unknown> }>,
      )) {
        if (method === 'post' || method === 'patch')
          expect({ method, path, has413: '413' in op.responses }).toEqual({ method, path, has413: true });
      }
    }
    const paths = live.paths as Record<string, { post: { responses: Record<string, { headers?: object }> } }>;
    const created = paths['/api/v1/applications/{applicationId}/connections']?.post.responses['201'];
    expect(created?.headers).toHaveProperty('Location');
  });
});
