/**
 * The management Lambda behind API Gateway (HTTP API, payload v2): wires the configuration,
 * the management library and the Hono app once per cold start; Hono's adapter does the rest.
 */

import { handle } from 'hono/aws-lambda';
import { loadApiConfig } from '../api-config';
import { WebhookManagement } from '../management';
import { createApi } from './app';

const config = loadApiConfig();
const management = new WebhookManagement({
  resources: {
    queueUrl: config.queueUrl,
    retryQueueUrl: config.retryQueueUrl,
    dlqUrl: config.dlqUrl,
    connectionsTable: config.connectionsTable,
    attemptsTable: config.attemptsTable,
    parkedTable: config.parkedTable,
    rateWindowsTable: config.rateWindowsTable,
    defaultRateLimit: config.defaultRateLimit,
    rateLimitCeiling: config.rateLimitCeiling,
    eventsTopicArn: config.eventsTopicArn,
    secretPrefix: config.secretPrefix,
    secretStore: config.secretStore,
    headerPrefix: config.headerPrefix,
    allowedPorts: [...config.allowedPorts],
    consoleKeySecret: config.consoleKeySecret,
    secretRotationOverlapSeconds: config.secretRotationOverlapSeconds,
    deliverySearch: config.deliverySearch,
  },
  attemptTimeoutMs: config.attemptTimeoutMs,
  attemptTtlDays: config.attemptTtlDays,
});

export const handler = handle(
  createApi({
    management,
    sessionKey: management.consoleSessionKey(),
    consoleDir: config.consoleDir,
    recoveryChecks: config.recoveryChecks,
  }),
);
