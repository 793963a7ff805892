/**
 * The stack's CloudWatch dashboard as a picture of its layout: each widget of the synthesised
 * dashboard body at its place on CloudWatch's 24-column grid, with its title, its kind and the
 * series it draws. Pure: the body in, SVG text out (scripts/dashboard-image.ts writes it and a
 * PNG rendered by Chromium to docs/images/; test/infra/dashboard-image.test.ts keeps the SVG
 * current with lib/dashboard.ts).
 */

/** One widget as the picture shows it. */
export interface WidgetBox {
  x: number;
  y: number;
  width: number;
  height: number;
  title: string;
  kind: string;
  /** The series it draws (visible ones), or the query's summary. */
  series: string[];
}

interface BodyWidget {
  type: string;
  x: number;
  y: number;
  width: number;
  height: number;
  properties: Record<string, unknown>;
}

/**
 * The dashboard body of a synthesised template (`AWS::CloudWatch::Dashboard`), each
 * CloudFormation token in it replaced by `…`.
 */
export function dashboardBodyOf(template: {
  Resources?: Record<string, { Type: string; Properties?: { DashboardBody?: unknown } }>;
}): {
  widgets: BodyWidget[];
} {
  const dashboards = Object.values(template.Resources ?? {}).filter(
    (r) => r.Type === 'AWS::CloudWatch::Dashboard',
  );
  if (dashboards.length !== 1)
    throw new Error(`expected one dashboard in the template, found ${dashboards.length}`);
  const body = dashboards[0]!.Properties?.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
  const text =
    typeof body === 'string'
      ? body
      : body['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : '…')).join('');
  return JSON.parse(text);
}

/** What each widget draws, by its body. */
export function widgetBoxes(body: { widgets: BodyWidget[] }): WidgetBox[] {
  return body.widgets.map((w) => {
    const p = w.properties;
    const box = { x: w.x, y: w.y, width: w.width, height: w.height, title: String(p.title ?? '') };
    if (w.type === 'alarm') {
      const alarms = (p.alarms as unknown[] | undefined)?.length ?? 0;
      return {
        ...box,
        kind: 'alarm status',
        series: [`${alarms} alarms, each OK / ALARM / INSUFFICIENT_DATA`],
      };
    }
    if (w.type === 'log')
      return { ...box, kind: 'Logs Insights table', series: ['failed attempts by connectionId'] };
    if (p.insightRule) {
      const rule = p.insightRule as { maxContributorCount?: number };
      return {
        ...box,
        kind: 'Contributor Insights',
        series: [`top ${rule.maxContributorCount ?? 10} connections by failed attempts`],
      };
    }
    const series = ((p.metrics as unknown[][] | undefined) ?? []).flatMap((m) => {
      const last = m[m.length - 1];
      if (last === null || typeof last !== 'object') return [];
      const options = last as { label?: string; visible?: boolean };
      return options.visible === false || !options.label ? [] : [options.label];
    });
    const kind = p.stacked ? 'stacked area' : 'line graph';
    return { ...box, kind, series };
  });
}

const COLUMN = 46;
const ROW = 26;
const GAP = 6;
const PAD = 12;

/** Text as SVG character data (titles come from the construct, escaped anyway). */
const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Shortens `text` to about `chars` characters. */
const shorten = (text: string, chars: number) =>
  text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;

/** The layout as SVG: one card per widget, the title, the kind and as many series as fit. */
export function dashboardSvg(boxes: readonly WidgetBox[], caption: string): string {
  const rows = Math.max(...boxes.map((b) => b.y + b.height));
  const width = 24 * COLUMN + 2 * PAD;
  const top = 34;
  const height = rows * ROW + top + 2 * PAD;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" role="img" aria-labelledby="dashboard-title">`,
    `<title id="dashboard-title">${esc(`${caption}: ${boxes.map((b) => b.title).join('; ')}`)}</title>`,
    `<rect width="${width}" height="${height}" fill="#f2f3f3"/>`,
    `<text x="${PAD}" y="${PAD + 14}" font-size="15" font-weight="bold" fill="#16191f">${esc(caption)}</text>`,
  ];
  for (const b of boxes) {
    const x = PAD + b.x * COLUMN + GAP / 2;
    const y = top + PAD + b.y * ROW + GAP / 2;
    const w = b.width * COLUMN - GAP;
    const h = b.height * ROW - GAP;
    const chars = Math.floor(w / 6.6);
    out.push(`<g>`);
    out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="#ffffff" stroke="#d5dbdb"/>`);
    out.push(
      `<text x="${x + 10}" y="${y + 20}" font-size="13" font-weight="bold" fill="#16191f">${esc(shorten(b.title, Math.floor(w / 8.2)))}</text>`,
    );
    out.push(`<text x="${x + 10}" y="${y + 37}" font-size="11" fill="#687078">${esc(b.kind)}</text>`);
    const room = Math.max(0, Math.floor((h - 50) / 15));
    const shown =
      b.series.length > room
        ? [...b.series.slice(0, Math.max(0, room - 1)), `+${b.series.length - room + 1} more`]
        : b.series;
    shown.forEach((s, i) => {
      out.push(
        `<text x="${x + 22}" y="${y + 56 + i * 15}" font-size="11" fill="#16191f">${esc(shorten(s, chars - 3))}</text>`,
      );
      if (!s.startsWith('+')) {
        out.push(
          `<rect x="${x + 10}" y="${y + 48 + i * 15}" width="8" height="8" fill="${SERIES_COLOURS[i % SERIES_COLOURS.length]}"/>`,
        );
      }
    });
    out.push(`</g>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** CloudWatch's first series colours, in order. */
const SERIES_COLOURS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
];
