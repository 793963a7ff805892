/**
 * Serves the console's three built files at /console/ with a strict Content-Security-Policy:
 * same origin only, no inline script, no third-party origins, never framed. The files are
 * read from a directory on each request (small, and local mode may build them after start).
 */

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, Hono } from 'hono';

/** The files the console build writes (console/build.ts), by URL path under /console/. */
export const CONSOLE_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // The file names carry no content hash: revalidate every time (cheap with the ETag).
  'Cache-Control': 'no-cache',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The web console has not been built</h1>
<p>This server answers the management API, but its console files are missing.
Build them with <code>npm run build:console</code> and reload this page.</p></body></html>
`;

function withHeaders(
  c: Context,
  status: 200 | 304 | 404 | 503,
  body: string | Uint8Array | null,
  type?: string,
) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
  if (type) c.header('Content-Type', type);
  return c.body(body as never, status);
}

export function mountConsole<E extends object>(
  app: Hono<E & { Variables: object }>,
  consoleDir: string | false,
): void {
  app.get('/console', (c) => c.redirect('/console/', 301));
  app.get('/console/*', async (c) => {
    const name = c.req.path.slice('/console/'.length);
    const entry = CONSOLE_FILES[name];
    if (consoleDir === false || !entry) {
      return withHeaders(c, 404, 'Not found\n', 'text/plain; charset=utf-8');
    }
    let content: Buffer;
    try {
      content = await readFile(join(consoleDir, entry.file));
    } catch {
      return withHeaders(c, 503, NOT_BUILT_PAGE, 'text/html; charset=utf-8');
    }
    const etag = `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
    c.header('ETag', etag);
    if (c.req.header('if-none-match') === etag) return withHeaders(c, 304, null);
    return withHeaders(c, 200, new Uint8Array(content), entry.type);
  });
}
