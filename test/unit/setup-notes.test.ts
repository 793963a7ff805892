/**
 * What a new user meets in the first minutes: the README's sample console link says its port
 * may differ, and `cdk synth` finds every feature flag a new app of this aws-cdk-lib would set.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENTLY_RECOMMENDED_FLAGS, NEW_PROJECT_DEFAULT_CONTEXT } from 'aws-cdk-lib/cx-api';

const ROOT = join(__dirname, '..', '..');

describe('setting up', () => {
  it('sets in cdk.json every flag `cdk init` writes for this aws-cdk-lib, at its recommended value', () => {
    const context = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<
      string,
      unknown
    >;
    const wanted = { ...CURRENTLY_RECOMMENDED_FLAGS, ...NEW_PROJECT_DEFAULT_CONTEXT } as Record<
      string,
      unknown
    >;
    const off = Object.keys(wanted).filter(
      (flag) => JSON.stringify(context[flag]) !== JSON.stringify(wanted[flag]),
    );
    expect(off).toEqual([]);
  });

  it("says right under the README's sample console link that its port differs when 8790 is taken", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const sample = readme.indexOf('http://127.0.0.1:8790/console/#token=');
    expect(sample).toBeGreaterThan(0);
    const after = readme.slice(sample, sample + 400);
    expect(after).toMatch(
      /```\s+Port 8790 is the default: when another program holds it, `npm start` takes a free port/,
    );
  });
});
