/** How docs/cost.md writes dollars, figures and tables. */

export const money = (x: number) =>
  x >= 100 || (x >= 10 && Number.isInteger(x))
    ? `$${Math.round(x).toLocaleString('en-US')}`
    : x >= 0.1
      ? `$${x.toFixed(2)}`
      : x === 0
        ? '$0'
        : `$${x.toPrecision(2)}`;

export const num = (x: number, digits = 3) =>
  Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en-US') : Number(x.toPrecision(digits)).toString();

/** A Markdown table. */
export const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
