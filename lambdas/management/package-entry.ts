/**
 * The package entry `serverless-webhooks/management` (package.json `exports`): its peers are checked
 * first (an import runs before the next one), then the library loads.
 */
import './package-peers';

export * from './index';
