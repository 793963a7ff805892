/**
 * A connection's shape is declared once, in lambdas/shapes/connection.ts (docs/architecture.md
 * "Adding a field to a connection"): the stored connection, the management inputs, an update's
 * changes, the API's view and the console's types are derived from that schema, so a new field
 * is one line there instead of one in each of seven hand-kept copies. Those read it through
 * connection-types.ts, the same types written out without zod (`npm run openapi`).
 */

import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { connectionView } from '../../lambdas/api/views';
import type { Connection } from '../../lambdas/core/types';
import { ConnectionSchema } from '../../lambdas/shapes/connection';
import { CONNECTION_TYPES, formattedShapeTypes } from '../../scripts/shape-types';
import { trackedSources, visitNodes } from '../support/source-files';

const FIELDS = Object.keys(ConnectionSchema.shape);

/** Interfaces and object types of production code that list most of a connection's fields by hand. */
function handWrittenConnections(): string[] {
  // The types written out from the schema are its copy by construction, held to it below.
  const files = trackedSources('lambdas', 'console', 'cli', 'local', 'lib', 'bin').filter(
    (f) => f !== 'lambdas/shapes/connection-types.ts',
  );
  expect(files.length).toBeGreaterThan(100);
  const found: string[] = [];
  visitNodes(files, (node, file, lineOf) => {
    if (!ts.isInterfaceDeclaration(node) && !ts.isTypeLiteralNode(node)) return;
    const named = node.members.filter(
      (m) => m.name && ts.isIdentifier(m.name) && FIELDS.includes(m.name.text),
    );
    // Five: a connection's settings are six; the form's text values and the unchecked input
    // the management library validates name four of them, and are other things.
    if (named.length >= 5) found.push(`${file}:${lineOf(node.getStart())}`);
  });
  return found;
}

const stored = {
  connectionId: 'con_01JD4Z8Q7X2N5M3K9B6V1C0RTY',
  applicationId: 'app_demo',
  type: 'webhook',
  name: 'CRM',
  url: 'https://crm.example.com/hooks',
  method: 'POST',
  headers: { Authorization: 'Bearer secret-token' },
  enabled: true,
  rateLimit: 50,
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhooks/con_1',
  secretVersion: 'v1',
  secretCiphertext: 'AQICAHh…',
  attemptShards: [{ count: 2, from: '2026-11-20T00:00:00.000Z' }],
  health: { state: 'healthy', consecutiveFailures: 0, version: 3 },
  createdAt: '2026-11-20T00:00:00.000Z',
  updatedAt: '2026-11-21T00:00:00.000Z',
} as Connection;

describe("a connection's shape", () => {
  it('is declared once: no production file lists its fields by hand', () => {
    expect(handWrittenConnections()).toEqual([]);
  });

  it('is read without zod from connection-types.ts, which is what `npm run openapi` writes now', () => {
    const text = readFileSync(CONNECTION_TYPES.out, 'utf8');
    expect(text).not.toMatch(/^import /m);
    expect(text).toBe(formattedShapeTypes(CONNECTION_TYPES));
  });

  it('is what the API shows: the fields the schema declares, in its order, and nothing stored besides', () => {
    const view = connectionView(stored);
    expect(Object.keys(view)).toEqual(FIELDS.filter((f) => f in stored));
    expect(Object.keys(view).length).toBeGreaterThanOrEqual(13);
    expect(ConnectionSchema.strict().safeParse(view).success).toBe(true);
    const text = JSON.stringify(view);
    for (const secret of ['secretsmanager', 'AQICAHh', 'attemptShards', 'Bearer', '"version"']) {
      expect(text).not.toContain(secret);
    }
    expect(view.headers).toEqual({ Authorization: '[hidden]' });
  });

  it('leaves out an optional field the connection does not have', () => {
    const { rateLimit: _r, secretVersion: _s, ...bare } = stored;
    const view = connectionView(bare as Connection);
    expect(Object.keys(view)).toEqual(FIELDS.filter((f) => f in bare));
    expect(view).not.toHaveProperty('rateLimit');
    expect(view).not.toHaveProperty('secretVersion');
    expect(view.health).toEqual({ state: 'healthy', consecutiveFailures: 0 });
  });
});
