/**
 * The billed benchmark runs each profile as a stack with that prop deploys it: every setting the
 * profile changes reaches the dispatcher it measures. Delivery search and claims are on unless
 * set, so a profile that turns them off must say so, or lean's CPU figure carries their writes.
 */

import { billedProfile } from '../../../bench/billed/profiles';
import { ENV } from '../../../lambdas/config';

describe('the billed profiles', () => {
  it("hand lean's dispatcher its search and claims switches off, and the defaults' on", () => {
    const lean = billedProfile('lean').settings;
    expect(lean[ENV.deliverySearch]).toBe('false');
    expect(lean[ENV.dedupeEvents]).toBe('false');
    const defaults = billedProfile('defaults').settings;
    expect(defaults[ENV.deliverySearch]).toBe('true');
    expect(defaults[ENV.dedupeEvents]).toBe('true');
  });
});
