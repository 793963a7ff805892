/**
 * The dashboard picture in docs/operations.md is drawn from the stack itself
 * (scripts/dashboard-image.ts): it must show every widget the synthesised dashboard has, and
 * the committed SVG must be what the script draws today, so it cannot drift from lib/dashboard.ts.
 */

import { existsSync, readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { DASHBOARD_PNG, DASHBOARD_SVG, defaultDashboardSvg } from '../../scripts/dashboard-image';
import { dashboardBodyOf, dashboardSvg, widgetBoxes } from '../../scripts/dashboard-svg';
import { defaultStack } from './fixtures';

describe('the dashboard picture', () => {
  const body = dashboardBodyOf(Template.fromStack(defaultStack()).toJSON());
  const boxes = widgetBoxes(body);

  it('draws one card per widget, at its place, with its title and the series it shows', () => {
    expect(boxes).toHaveLength(body.widgets.length);
    expect(boxes.length).toBeGreaterThanOrEqual(20);
    const svg = dashboardSvg(boxes, 'caption');
    expect(svg.match(/<g>/g)).toHaveLength(body.widgets.length);
    const outcomes = boxes.find((b) => b.title === 'Attempts by outcome')!;
    expect(outcomes.kind).toBe('stacked area');
    expect(outcomes.series).toContain('http_error');
    // The success ratio's hidden inputs are not series of their own.
    expect(boxes.find((b) => b.title.startsWith('Success ratio'))!.series).toEqual(['% delivered']);
    expect(boxes.find((b) => b.title === 'Alarms')).toMatchObject({
      x: 0,
      y: 0,
      width: 24,
      kind: 'alarm status',
    });
    expect(boxes.some((b) => b.kind === 'Contributor Insights')).toBe(true);
    expect(boxes.some((b) => b.kind === 'Logs Insights table')).toBe(true);
  });

  it('is current: docs/images/dashboard.svg is what `npm run dashboard:image` draws now', () => {
    expect(readFileSync(DASHBOARD_SVG, 'utf8')).toBe(defaultDashboardSvg());
    expect(existsSync(DASHBOARD_PNG)).toBe(true);
  });

  it('writes titles as text, never as markup', () => {
    const svg = dashboardSvg([{ ...boxes[0]!, title: '<script>x</script> & "q"' }], 'c');
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;');
    expect(svg).not.toContain('<script>');
  });
});
