/** Asking before a command destroys something (`connections delete`, `dlq delete`). */

import type { Context } from './context';
import { CliError, UsageError } from './errors';

/**
 * Asks `question [y/N]` on the terminal and goes on only on yes. Without a terminal (CI, a pipe)
 * refuses: nobody can answer, so nothing is destroyed unasked (`--yes` skips the question).
 * @param refusal what was not done, e.g. `not deleting con_1`
 * @param retry the command line that goes ahead without asking
 */
export async function confirm(
  ctx: Context,
  question: string,
  what: { refusal: string; retry: string; declined: string },
): Promise<void> {
  if (ctx.stdin.isTTY !== true) {
    throw new UsageError(
      `${what.refusal} without confirmation (no terminal to ask on); to go ahead, run: ${what.retry}`,
    );
  }
  ctx.stderr.write(`${question} [y/N] `);
  const answer = await readLine(ctx.stdin);
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError(what.declined);
}

function readLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes('\n')) done();
    };
    const done = () => {
      stream.off('data', onData);
      stream.off('end', done);
      stream.pause();
      resolve(text.split('\n')[0] ?? '');
    };
    stream.on('data', onData);
    stream.once('end', done);
    stream.resume();
  });
}
