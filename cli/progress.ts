/**
 * A progress indicator for long operations, on stderr so stdout stays the result: one
 * counter line rewritten in place on a terminal, a line every few seconds otherwise (logs, CI).
 */

export interface ProgressOptions {
  /** e.g. `(n) => \`redriven ${n}\`` */
  describe: (done: number) => string;
  isTTY?: boolean;
  /** Minimum time between two lines when not a TTY. @default 2000 */
  intervalMs?: number;
  /** Minimum time between two redraws on a TTY. @default 100 */
  redrawMs?: number;
  now?: () => number;
}

export interface Progress {
  update(done: number): void;
  /** Ends the indicator (a terminal line is completed with a newline). */
  finish(done: number): void;
}

const CLEAR_LINE = '\r\x1b[2K';

export function progress(stream: { write(text: string): unknown }, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const tty = options.isTTY ?? false;
  const every = tty ? (options.redrawMs ?? 100) : (options.intervalMs ?? 2_000);
  let last = Number.NEGATIVE_INFINITY;
  let shown = -1;
  const draw = (done: number) => {
    stream.write(tty ? `${CLEAR_LINE}${options.describe(done)}` : `${options.describe(done)}\n`);
    shown = done;
    last = now();
  };
  return {
    update(done) {
      if (now() - last >= every) draw(done);
    },
    finish(done) {
      if (tty) {
        if (shown !== -1 || done > 0) {
          draw(done);
          stream.write('\n');
        }
      } else if (shown !== -1 && shown !== done) {
        draw(done);
      }
    },
  };
}
