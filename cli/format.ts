/** Text for people: aligned tables, key/value blocks and times as "ISO (3m ago)". No dependency. */

import { visible } from '../lambdas/core/terminal';

export { safeJson, visible } from '../lambdas/core/terminal';

/** Display width of a string: code points, so `…` and `✓` count as one column. */
function width(text: string): number {
  return [...text].length;
}

function pad(text: string, to: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, to - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | undefined;
  align?: 'left' | 'right';
  /** At least this wide, whatever the rows: tables printed one after another then line up. */
  minWidth?: number;
}

/**
 * An aligned table: a header line, then one line per row, columns separated by two spaces,
 * no trailing spaces. Empty cells show as `-` so columns never look shifted.
 */
export function table<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const v = c.value(row);
      return v === undefined || v === '' ? '-' : visible(oneLine(String(v)));
    }),
  );
  const widths = columns.map((c, i) =>
    Math.max(c.minWidth ?? 0, width(c.header), ...cells.map((r) => width(r[i]!))),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => pad(v, widths[i]!, columns[i]!.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** `key  value` lines with the keys aligned; undefined values are left out. */
export function keyValues(
  pairs: ReadonlyArray<[string, string | number | undefined]>,
  indent = '  ',
): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== '') as Array<[string, string | number]>;
  const keyWidth = Math.max(0, ...shown.map(([k]) => width(k)));
  return shown.map(([k, v]) => `${indent}${pad(k, keyWidth, 'left')}  ${visible(String(v))}`).join('\n');
}

const UNITS: Array<[suffix: string, ms: number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** "3m ago", "in 4s", "just now"; the largest unit that fits, rounded down. */
export function relativeTime(at: Date | string, now: Date = new Date()): string {
  const ms = new Date(at).getTime() - now.getTime();
  if (Number.isNaN(ms)) return 'unknown time';
  const abs = Math.abs(ms);
  if (abs < 1_000) return 'just now';
  const [suffix, size] = UNITS.find(([, unitMs]) => abs >= unitMs)!;
  const amount = `${Math.floor(abs / size)}${suffix}`;
  return ms < 0 ? `${amount} ago` : `in ${amount}`;
}

/** "2026-11-21T14:53:00.123Z (3m ago)". */
export function when(at: string | undefined, now: Date = new Date()): string | undefined {
  if (!at) return undefined;
  return `${at} (${relativeTime(at, now)})`;
}

/** Shortens text to `max` characters with an ellipsis, on one line. */
export function truncate(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const flat = oneLine(text);
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** Line breaks and tabs as spaces; other control characters are left to visible(). */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}

/** "1 delivery", "3 deliveries". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
