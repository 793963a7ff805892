/** Checks the peers of `serverless-webhooks/cdk` before `./package-entry.ts` loads them. */
import { requirePeers } from '../lambdas/peer-dependencies';

requirePeers('serverless-webhooks/cdk');
