/**
 * (6) The web console's download: index.html + app.js + app.css as built for /console/,
 * gzipped, against its budget of 100 KB (issue 13). A ratio above 1 is over budget.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConsole, CONSOLE_BUDGET_GZIP_BYTES } from '../console/build';
import { ratio } from './support/stats';

export interface ConsoleBundleFigures {
  files: Record<string, { bytes: number; gzipBytes: number }>;
  gzipBytes: number;
  budgetGzipBytes: number;
  /** gzipBytes / budgetGzipBytes. */
  budgetRatio: number;
}

export async function measureConsoleBundle(): Promise<ConsoleBundleFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-bench-console-'));
  try {
    const built = await buildConsole(dir);
    return {
      files: built.files,
      gzipBytes: built.gzipBytes,
      budgetGzipBytes: CONSOLE_BUDGET_GZIP_BYTES,
      budgetRatio: ratio(built.gzipBytes, CONSOLE_BUDGET_GZIP_BYTES),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
