/** Checks the peers of `serverless-webhooks/management` before `./package-entry.ts` loads them. */
import { requirePeers } from '../peer-dependencies';

requirePeers('serverless-webhooks/management');
