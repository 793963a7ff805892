/** Finds a deployed stack's resources from its outputs (lambdas/stack-outputs.ts names them). */

import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ConfigurationError } from '../../core/errors';
import type { WebhookResources } from '../../management/types';
import { MANAGEMENT_API_OUTPUTS, STACK_OUTPUTS } from '../../stack-outputs';

export class StackNotFoundError extends ConfigurationError {
  constructor(stackName: string, detail: string, options?: { cause?: unknown }) {
    super('stack_not_found', `stack ${stackName}: ${detail}`, options);
    this.name = 'StackNotFoundError';
  }
}

export async function resourcesFromStack(
  stackName: string,
  client: CloudFormationClient = new CloudFormationClient({}),
): Promise<WebhookResources> {
  let outputs: Record<string, string>;
  try {
    const out = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = out.Stacks?.[0];
    if (!stack) throw new StackNotFoundError(stackName, 'not found');
    outputs = Object.fromEntries((stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  } catch (error) {
    if (error instanceof StackNotFoundError) throw error;
    throw new StackNotFoundError(stackName, (error as Error).message, { cause: error });
  }
  const need = (key: string) => {
    const value = outputs[key];
    if (!value) throw new StackNotFoundError(stackName, `has no output ${key}; is it a webhooks stack?`);
    return value;
  };
  return {
    queueUrl: need(STACK_OUTPUTS.queueUrl),
    retryQueueUrl: need(STACK_OUTPUTS.retryQueueUrl),
    dlqUrl: need(STACK_OUTPUTS.deadLetterQueueUrl),
    connectionsTable: need(STACK_OUTPUTS.connectionsTableName),
    attemptsTable: need(STACK_OUTPUTS.attemptsTableName),
    secretPrefix: need(STACK_OUTPUTS.secretPrefix),
    secretStore:
      outputs[STACK_OUTPUTS.secretStore] === 'kms'
        ? { kind: 'kms', keyArn: need(STACK_OUTPUTS.secretKeyArn) }
        : { kind: 'secrets-manager' },
    headerPrefix: outputs[STACK_OUTPUTS.headerPrefix] || undefined,
    parkedTable: outputs[STACK_OUTPUTS.parkedTableName] || undefined,
    rateWindowsTable: outputs[STACK_OUTPUTS.rateWindowsTableName] || undefined,
    defaultRateLimit: positiveInteger(outputs[STACK_OUTPUTS.defaultRateLimit]),
    rateLimitCeiling: positiveInteger(outputs[STACK_OUTPUTS.rateLimitCeiling]),
    secretRotationOverlapSeconds: wholeNumber(outputs[STACK_OUTPUTS.secretRotationOverlapSeconds]),
    // Absent: a stack that predates the switch, where search is on (its lookups start with it).
    deliverySearch: outputs[STACK_OUTPUTS.deliverySearch] !== 'off',
    eventsTopicArn: outputs[STACK_OUTPUTS.eventsTopicArn] || undefined,
    apiUrl: outputs[MANAGEMENT_API_OUTPUTS.apiUrl] || undefined,
    consoleKeySecret: outputs[MANAGEMENT_API_OUTPUTS.consoleKeySecret] || undefined,
    failingConnectionsRule: outputs[STACK_OUTPUTS.failingConnectionsRuleName] || undefined,
    metricsStack: outputs[STACK_OUTPUTS.metricsStackName] || undefined,
    allowedPorts: outputs[STACK_OUTPUTS.allowedPorts]
      ? outputs[STACK_OUTPUTS.allowedPorts]!.split(',')
          .map(positiveInteger)
          .filter((n) => n !== undefined)
      : undefined,
  };
}

/** A positive integer output, or undefined when absent or not one. */
function positiveInteger(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A whole number of 0 or more (0 is a setting: no overlap); undefined for anything else. */
function wholeNumber(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 0 ? n : undefined;
}
