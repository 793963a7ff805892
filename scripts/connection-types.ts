/**
 * Writes lambdas/shapes/connection-types.ts: the types of lambdas/shapes/connection.ts (each
 * `z.infer` of its schema) spelled out, so the core, the console and the package's published
 * type declarations read a connection's shape without zod, which users of the package do not
 * install (docs/architecture.md "Adding a field to a connection"). `npm run openapi` runs it
 * with the OpenAPI document; test/unit/connection-shape.test.ts fails when the file is stale.
 *
 *   node --import tsx scripts/connection-types.ts
 */

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..');
const SOURCE = join(ROOT, 'lambdas', 'shapes', 'connection.ts');
export const CONNECTION_TYPES_FILE = join(ROOT, 'lambdas', 'shapes', 'connection-types.ts');

const HEADER = `/**
 * Generated from lambdas/shapes/connection.ts by \`npm run openapi\` (scripts/connection-types.ts):
 * do not edit. A connection's types without zod, for the core, the console and the package's
 * type declarations; the schema there is the one declaration (docs/architecture.md).
 */
`;

/** The file's text (unformatted): each non-generic type alias of the schema module, expanded. */
export function connectionTypesText(): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('connection-types: cannot read tsconfig.json');
  const program = ts.createProgram([SOURCE], config.options);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SOURCE);
  if (!source) throw new Error(`connection-types: cannot read ${SOURCE}`);
  const flags =
    ts.TypeFormatFlags.NoTruncation |
    ts.TypeFormatFlags.InTypeAlias |
    ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  const types = source.statements
    .filter((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && !s.typeParameters)
    .map((alias) => {
      const doc = ts
        .getJSDocCommentsAndTags(alias)
        .map((d) => d.getText(source))
        .join('\n');
      const text = checker.typeToString(checker.getTypeAtLocation(alias.name), undefined, flags);
      return `${doc ? `${doc}\n` : ''}export type ${alias.name.text} = ${text};\n`;
    });
  if (types.length === 0) throw new Error(`connection-types: no type in ${SOURCE}`);
  return `${HEADER}\n${types.join('\n')}`;
}

/** The file's text as the repository's formatter keeps it (what the file must hold). */
export function formattedConnectionTypes(): string {
  return execFileSync(
    join(ROOT, 'node_modules', '.bin', 'biome'),
    ['format', `--stdin-file-path=${CONNECTION_TYPES_FILE}`],
    { cwd: ROOT, input: connectionTypesText(), encoding: 'utf8' },
  );
}

if (require.main === module) {
  writeFileSync(CONNECTION_TYPES_FILE, formattedConnectionTypes());
  process.stdout.write(`wrote ${CONNECTION_TYPES_FILE}\n`);
}
