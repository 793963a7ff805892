/**
 * `npm run openapi`: writes docs/openapi.json from the API's route definitions, formatted
 * the way the repository's formatter keeps JSON (test/unit/api/openapi.test.ts compares the
 * parsed copy with the live document), and the schemas' types without zod
 * (lambdas/shapes/connection-types.ts, resource-types.ts: scripts/shape-types.ts), the files
 * derived from them.
 */

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiDocumentText } from '../lambdas/api/openapi';
import { writeShapeTypes } from './shape-types';

const root = join(__dirname, '..');
const target = join(root, 'docs', 'openapi.json');
writeFileSync(target, apiDocumentText());
execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', target], { stdio: 'ignore' });
process.stdout.write(`wrote ${[target, ...writeShapeTypes()].join(', ')}\n`);
