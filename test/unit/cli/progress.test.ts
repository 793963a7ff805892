import { progress } from '../../../cli/progress';

function sink() {
  const writes: string[] = [];
  return { writes, write: (text: string) => writes.push(text) };
}

describe('the progress indicator', () => {
  it('rewrites one counter line in place on a terminal, then ends it', () => {
    const out = sink();
    let t = 0;
    const p = progress(out, { describe: (n) => `redriven ${n}`, isTTY: true, redrawMs: 100, now: () => t });
    p.update(1);
    t = 50;
    p.update(2); // too soon: skipped
    t = 150;
    p.update(3);
    p.finish(4);
    expect(out.writes).toEqual(['\r\x1b[2Kredriven 1', '\r\x1b[2Kredriven 3', '\r\x1b[2Kredriven 4', '\n']);
  });

  it('prints a line every interval when not a terminal, and the final count if it was not shown', () => {
    const out = sink();
    let t = 0;
    const p = progress(out, {
      describe: (n) => `redriven ${n}`,
      isTTY: false,
      intervalMs: 2000,
      now: () => t,
    });
    for (let n = 1; n <= 30; n++) {
      t = n * 200;
      p.update(n);
    }
    p.finish(30);
    expect(out.writes).toEqual(['redriven 1\n', 'redriven 11\n', 'redriven 21\n', 'redriven 30\n']);
  });

  it('prints nothing when there was nothing to do', () => {
    const out = sink();
    progress(out, { describe: (n) => `${n}`, isTTY: false }).finish(0);
    progress(out, { describe: (n) => `${n}`, isTTY: true }).finish(0);
    expect(out.writes).toEqual([]);
  });
});
