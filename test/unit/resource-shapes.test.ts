/**
 * The API's other resources are declared once too, as the schemas it validates and documents
 * with (lambdas/api/schemas.ts, lambdas/api/delivery-schemas.ts): the core's attempt record and
 * parked delivery and the console's types derive from them, through resource-types.ts, the
 * same types written out without zod by `npm run openapi` (scripts/shape-types.ts).
 */

import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { ATTEMPTS_TABLE } from '../../lambdas/adapters/dynamodb/tables';
import { AttemptSchema } from '../../lambdas/api/delivery-schemas';
import { ParkedSchema, StatsSchema } from '../../lambdas/api/schemas';
import { formattedShapeTypes, RESOURCE_TYPES } from '../../scripts/shape-types';
import { trackedSources, visitNodes } from '../support/source-files';

/** Interfaces and object types of production code that list most of a resource's fields by hand. */
function handWritten(fields: string[], atLeast: number): string[] {
  const files = trackedSources('lambdas', 'console', 'cli', 'local', 'lib', 'bin').filter(
    (f) => !f.startsWith('lambdas/shapes/'),
  );
  expect(files.length).toBeGreaterThan(100);
  const found: string[] = [];
  visitNodes(files, (node, file, lineOf) => {
    if (!ts.isInterfaceDeclaration(node) && !ts.isTypeLiteralNode(node)) return;
    const named = node.members.filter(
      (m) => m.name && ts.isIdentifier(m.name) && fields.includes(m.name.text),
    );
    if (named.length >= atLeast) found.push(`${file}:${lineOf(node.getStart())}`);
  });
  return found;
}

describe("the API's resources", () => {
  it('are read without zod from resource-types.ts, which is what `npm run openapi` writes now', () => {
    const text = readFileSync(RESOURCE_TYPES.out, 'utf8');
    expect(text).not.toMatch(/^import /m);
    expect(text).toMatch(/export type AttemptView = /);
    expect(text).toMatch(/export type ParkedView = /);
    expect(text).toBe(formattedShapeTypes(RESOURCE_TYPES));
  });

  it.each([
    ['an attempt', Object.keys(AttemptSchema.shape), 8],
    ['a parked delivery', Object.keys(ParkedSchema.shape), 7],
    ['the stats', Object.keys(StatsSchema.shape), 5],
  ])('declare %s once: no production file lists its fields by hand', (_name, fields, atLeast) => {
    expect(fields.length).toBeGreaterThanOrEqual(atLeast);
    expect(handWritten(fields, atLeast)).toEqual([]);
  });

  it("are what the attempt log's by-time index carries: every field of an attempt, and never the body", () => {
    const byTime = ATTEMPTS_TABLE.byTimeIndex;
    const carried = [ATTEMPTS_TABLE.partitionKey, byTime.sortKey, ...byTime.projected];
    expect(carried.sort()).toEqual(Object.keys(AttemptSchema.shape).sort());
  });
});
