/**
 * The repository stands on its own: no tracked file cites team notes kept outside it, the README
 * stays a front door (at most 300 lines, the rest in docs/), the licence text is there, and every
 * relative link of the README and docs/*.md reaches a file that exists (and, for a heading
 * anchor in a Markdown file, a heading that exists).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { headingAnchors, withoutFences } from '../support/markdown';

const ROOT = join(__dirname, '..', '..');

/** Every tracked file that exists in the work tree, relative to the root. */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f.length > 0 && existsSync(join(ROOT, f)) && statSync(join(ROOT, f)).isFile());
}

/** The text of a tracked file, or undefined when it is binary (a NUL in its first 8 KiB). */
function textOf(file: string): string | undefined {
  const bytes = readFileSync(join(ROOT, file));
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  return bytes.toString('utf8');
}

/**
 * Citations of notes that live outside the repository. Spelled in pieces, so that this file
 * does not cite them itself.
 */
const OUTSIDE_CITATIONS = [['DESIGN', 'md'].join('.'), ['STYLE', 'md'].join('.'), ['..', 'shared'].join('/')];

/** The Markdown files whose links are checked: the README and docs/*.md. */
function markdownFiles(): string[] {
  return trackedFiles().filter((f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f));
}

/** Markdown text with fenced code blocks and inline code blanked out: links in code are not links. */
function withoutCode(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** Every link target of a Markdown text: inline links and images, and reference definitions. */
function linkTargets(text: string): string[] {
  const prose = withoutCode(text);
  const targets: string[] = [];
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
  for (const m of prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) targets.push(m[1]!);
  return targets;
}

describe('the repository stands on its own', () => {
  it('has no tracked file that cites notes kept outside it', () => {
    const citing = trackedFiles().flatMap((file) => {
      const text = textOf(file);
      if (text === undefined) return [];
      return OUTSIDE_CITATIONS.filter((c) => text.includes(c)).map((c) => `${file}: ${c}`);
    });
    expect(citing).toEqual([]);
  });

  it('keeps the README a front door: at most 300 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  it('carries the licence package.json names (Apache-2.0) as LICENSE', () => {
    expect(trackedFiles()).toContain('LICENSE');
    const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(licence).toContain('Apache License');
    expect(licence).toContain('Version 2.0, January 2004');
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
  });

  it('has no relative link in the README or docs/ that points at nothing', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const target of linkTargets(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not relative
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = path === '' ? join(ROOT, file) : join(dirname(join(ROOT, file)), decodeURI(path));
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
          broken.push(`${file}: ${target} (no file ${relative(ROOT, resolved)})`);
          continue;
        }
        if (
          anchor &&
          resolved.endsWith('.md') &&
          !headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)
        ) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(ROOT, resolved)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('writes links between docs/ files relative to docs/, not from the root', () => {
    const rooted = markdownFiles()
      .filter((f) => f.startsWith('docs/'))
      .flatMap((file) =>
        linkTargets(readFileSync(join(ROOT, file), 'utf8'))
          .filter((t) => t.startsWith('docs/'))
          .map((t) => `${file}: ${t}`),
      );
    expect(rooted).toEqual([]);
  });
});
