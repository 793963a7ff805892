/** Flags every command accepts, wherever they appear on the command line. */

import type { FlagSpec } from './types';

export const DEFAULT_STACK = 'Webhooks';

export const GLOBAL_FLAGS = {
  local: {
    type: 'boolean',
    description: 'use the pipeline `npm start` runs on this machine (reads its state file)',
  },
  stack: {
    type: 'string',
    value: 'name',
    description: `deployed stack whose outputs name the resources (default: ${DEFAULT_STACK})`,
  },
  region: {
    type: 'string',
    value: 'region',
    description: 'AWS region of the stack (default: AWS_REGION or your profile)',
  },
  profile: {
    type: 'string',
    value: 'name',
    description: 'AWS profile for credentials (default: the default credential chain)',
  },
  json: { type: 'boolean', description: 'machine-readable JSON on stdout' },
  help: { type: 'boolean', short: 'h', description: 'show help for the command' },
} as const satisfies Record<string, FlagSpec>;
