/** The stack's resources as the integration and browser projects' global setup exports them. */

import { ENV } from '../../lambdas/config';
import type { WebhookResources } from '../../lambdas/management';

export function resourcesFromEnv(extra: Partial<WebhookResources> = {}): WebhookResources {
  return {
    queueUrl: process.env[ENV.queueUrl]!,
    retryQueueUrl: process.env[ENV.retryQueueUrl]!,
    dlqUrl: process.env[ENV.dlqUrl]!,
    connectionsTable: process.env[ENV.connectionsTable]!,
    attemptsTable: process.env[ENV.attemptsTable]!,
    parkedTable: process.env[ENV.parkedTable]!,
    rateWindowsTable: process.env[ENV.rateWindowsTable]!,
    secretPrefix: process.env[ENV.secretPrefix]!,
    ...extra,
  };
}
