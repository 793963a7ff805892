/**
 * The package entry `serverless-webhooks/cdk` (package.json `exports`): its peers are checked
 * first (an import runs before the next one), then the construct loads.
 */
import './package-peers';

export * from './index';
