/**
 * `npm run openapi`: writes docs/openapi.json from the API's route definitions, formatted
 * the way the repository's formatter keeps JSON (test/unit/api/openapi.test.ts compares the
 * parsed copy with the live document), and lambdas/shapes/connection-types.ts from the
 * connection's schema (scripts/connection-types.ts), the two files derived from it.
 */

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiDocumentText } from '../lambdas/api/openapi';
import { CONNECTION_TYPES_FILE, formattedConnectionTypes } from './connection-types';

const root = join(__dirname, '..');
const target = join(root, 'docs', 'openapi.json');
writeFileSync(target, apiDocumentText());
execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', target], { stdio: 'ignore' });
writeFileSync(CONNECTION_TYPES_FILE, formattedConnectionTypes());
process.stdout.write(`wrote ${target} and ${CONNECTION_TYPES_FILE}\n`);
