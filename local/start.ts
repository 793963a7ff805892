/**
 * `npm start`: the whole pipeline on this machine, no AWS account, no Docker.
 *
 * fauxqs (SQS), dynalite (DynamoDB) and the local Secrets Manager endpoint; the real
 * dispatcher handler invoked by a runner with Lambda's SQS semantics; a demo HTTPS receiver
 * that verifies signatures with the receiver library. The production adapters run unchanged:
 * only endpoints and credentials differ. Ctrl-C stops everything.
 *
 *   npm start                      # state kept in .local/data across restarts
 *   npm start -- --fresh           # start clean (deletes what was kept)
 *   npm start -- --in-memory       # keep nothing
 *   npm run demo                   # the scripted tour, then exit (in memory, its own state file)
 *
 * Its parts, in local/start/: the options (args.ts), where it keeps its state (storage.ts),
 * the pipeline (stack.ts), what it prints (banner.ts) and the demo (tour.ts).
 */

import { ownerOnlyFromNowOn } from './private-files';
import { checkSettings, readArgs, type StartArgs, USAGE } from './start/args';
import { readyBanner, stoppedMessage } from './start/banner';
import { type LocalStack, startStack } from './start/stack';
import { prepareStorage, type StackStorage } from './start/storage';
import { playTour, publishFirstEvent } from './start/tour';

const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const args = readArgs();
  if (args.help) {
    console.log(USAGE);
    return;
  }
  // Before anything is written: what it keeps may hold secrets, header values and bodies.
  ownerOnlyFromNowOn();
  const storage = prepareStorage(args);
  const settings = checkSettings(args);

  out('Starting the local webhook pipeline…');
  const stack = await startStack(args, storage, settings, out);
  const stop = stopper(stack, storage, args);
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  out(readyBanner(stack, storage, args, settings.extraPorts));

  await publishFirstEvent(stack, out);
  if (args.demo) {
    await playTour(stack, out);
    await stop(0);
  }
}

/** Stops the pipeline once (Ctrl-C, or the end of the tour), says what was kept, and exits. */
function stopper(stack: LocalStack, storage: StackStorage, args: StartArgs) {
  let stopping = false;
  return async (code = 0) => {
    if (stopping) return;
    stopping = true;
    out('\nStopping…');
    await stack.stop();
    out(stoppedMessage(storage, args));
    process.exit(code);
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.DEBUG) console.error(error);
  process.exit(1);
});
