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
        'GET /deliveries/{deliveryId}',
        'GET /failures',
        'GET /connections/{connectionId}/parked',
        'POST /connections/{connectionId}/recover',
        'POST /deliveries/{deliveryId}/retry',
      ].sort(),
    );
    expect(live.security).toEqual([{ session: [] }]);
    expect(live.components?.securitySchemes?.session).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the error shape on every operation', () => {
    for (const item of Object.values(live.paths ?? {})) {
      for (const op of Object.values(item as Record<string, { responses: Record<string, unknown> }>)) {
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '404']));
      }
    }
  });
});
