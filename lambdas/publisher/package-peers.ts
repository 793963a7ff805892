/** Checks the peers of `serverless-webhooks/publisher` before `./package-entry.ts` loads them. */
import { requirePeers } from '../peer-dependencies';

requirePeers('serverless-webhooks/publisher');
