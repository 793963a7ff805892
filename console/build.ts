/**
 * Builds the console into `outDir` (index.html, app.js, app.css): one esbuild bundle of
 * console/main.tsx with Preact, minified, no source of any other origin. The API serves the
 * three files at /console/ under a strict Content-Security-Policy (no inline script or style),
 * so index.html only links them.
 *
 *   npm run build:console            # → dist/console/
 *   buildConsole(dir)                # from tests and local mode
 */

import { copyFileSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const CONSOLE_DIR = __dirname;
export const DEFAULT_OUT_DIR = resolve(__dirname, '..', 'dist', 'console');
/** The console's budget: everything a browser downloads, gzipped. */
export const CONSOLE_BUDGET_GZIP_BYTES = 100 * 1024;
export const CONSOLE_FILES = ['index.html', 'app.js', 'app.css'] as const;

export interface ConsoleBuild {
  outDir: string;
  /** Bytes of each file as written, and gzipped. */
  files: Record<(typeof CONSOLE_FILES)[number], { bytes: number; gzipBytes: number }>;
  gzipBytes: number;
}

export async function buildConsole(outDir: string = DEFAULT_OUT_DIR): Promise<ConsoleBuild> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: { app: join(CONSOLE_DIR, 'main.tsx'), 'app-style': join(CONSOLE_DIR, 'app.css') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(CONSOLE_DIR, 'tsconfig.json'),
    legalComments: 'none',
    logLevel: 'warning',
    entryNames: '[name]',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  renameSync(join(outDir, 'app-style.css'), join(outDir, 'app.css'));
  copyFileSync(join(CONSOLE_DIR, 'index.html'), join(outDir, 'index.html'));
  const files = {} as ConsoleBuild['files'];
  let gzipBytes = 0;
  for (const name of CONSOLE_FILES) {
    const content = readFileSync(join(outDir, name));
    files[name] = { bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
    gzipBytes += files[name].gzipBytes;
  }
  return { outDir, files, gzipBytes };
}

if (require.main === module) {
  buildConsole(process.argv[2] ? resolve(process.argv[2]) : DEFAULT_OUT_DIR).then(
    (result) => {
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      console.log(
        `console built in ${result.outDir}: ${kb(result.gzipBytes)} gzipped (budget ${kb(CONSOLE_BUDGET_GZIP_BYTES)})`,
      );
      if (result.gzipBytes > CONSOLE_BUDGET_GZIP_BYTES) process.exitCode = 1;
    },
    (error: unknown) => {
      console.error(`build:console: ${(error as Error).message}`);
      process.exitCode = 1;
    },
  );
}
