/**
 * The repository's own source files, for tests that hold the code's shape: the files git tracks
 * under some folders, and a walk over each one's syntax tree.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '../..');

/** The tracked TypeScript files under these folders (paths relative to the root). */
export function trackedSources(...folders: string[]): string[] {
  return execFileSync('git', ['ls-files', ...folders], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.tsx?$/.test(f));
}

/** Calls `visit` with every node of each file's syntax tree, and the line a node starts on (1-based). */
export function visitNodes(
  files: readonly string[],
  visit: (node: ts.Node, file: string, lineOf: (position: number) => number) => void,
): void {
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(path.join(ROOT, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
    const walk = (node: ts.Node) => {
      visit(node, file, lineOf);
      ts.forEachChild(node, walk);
    };
    walk(source);
  }
}
