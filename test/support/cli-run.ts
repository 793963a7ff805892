/**
 * The CLI run in this process with its output captured, for tests: the exit code and what a
 * person would read on stdout and stderr.
 */

import { PassThrough } from 'node:stream';
import { type Io, run } from '../../cli/main';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: readonly string[], io: Partial<Io> = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const code = await run(argv, { env: {}, ...io, stdout, stderr });
  return { code, stdout: out, stderr: err };
}
