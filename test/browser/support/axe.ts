/** axe-core in the real Chromium: the serious and critical violations of a page as it is now. */

import { readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * axe-core's serious and critical violations of the page as it is now. axe is injected as an
 * inline script, which the console's Content-Security-Policy refuses: the page must have been
 * opened after `page.setBypassCSP(true)`.
 */
export async function seriousViolations(
  p: Page,
): Promise<Array<{ id: string; help: string; targets: string[] }>> {
  const present = await p.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === 'object');
  if (!present) await p.addScriptTag({ content: AXE_SOURCE });
  const violations = await p.evaluate(async () => {
    const { axe, document } = globalThis as unknown as {
      axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> };
      document: unknown;
    };
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}
