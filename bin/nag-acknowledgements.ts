import { Stack, Validations } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { IConstruct } from 'constructs';
import type { WebhookDelivery } from '../lib/webhook-delivery';

/**
 * The project's own cdk-nag acknowledgements, used by its app (bin/app.ts) and tests. They live
 * here, not in lib/, so that the construct never needs cdk-nag (a devDependency).
 *
 * Acknowledges the cdk-nag AwsSolutions findings that {@link WebhookDelivery} raises by
 * design. Each one names the finding exactly (cdk-nag 3 has no blanket suppression) and
 * carries its reason. Call it for every WebhookDelivery in a stack that runs
 * `AwsSolutionsChecks`.
 *
 * Not needed: AwsSolutions-SQS3 (cdk-nag recognises the DLQ as the delivery queue's
 * dead-letter queue) and AwsSolutions-IAM4 (the dispatcher role has no managed policy).
 */
export function acknowledgeNagFindings(delivery: WebhookDelivery): void {
  // AwsSolutions-IAM5: connection secrets are created at run time, one per connection, and a
  // secret ARN ends with a random 6-character suffix, so GetSecretValue can only be scoped to
  // the stack's name prefix (which ends with "/", so no other stack's secrets match).
  Validations.of(delivery.dispatcherRole).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagArn(delivery, delivery.secretArnPattern)}]`,
    reason:
      'Connection secrets are created at run time under the stack-owned name prefix and their ARNs end ' +
      'with a random suffix; GetSecretValue is limited to that prefix.',
  });
  const api = delivery.managementApi;
  if (delivery.tracing) {
    // AwsSolutions-IAM5: X-Ray's PutTraceSegments and PutTelemetryRecords have no resource-level
    // permissions; active tracing (opt-in `tracing` prop) grants them on "*" and nothing else.
    const xray = {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active X-Ray tracing (the opt-in tracing prop): xray:PutTraceSegments and xray:PutTelemetryRecords ' +
        'support no resource-level permissions, so Lambda grants them on "*" and nothing else.',
    };
    Validations.of(delivery.dispatcherRole).acknowledge(xray);
    if (api) Validations.of(api.role).acknowledge(xray);
  }
  if (api) {
    Validations.of(api.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(delivery, delivery.secretArnPattern)}]`,
      reason:
        'The management API creates, shows, rotates and deletes connection secrets, which are created at run ' +
        'time under the stack-owned name prefix with random ARN suffixes; its rights are limited to that prefix.',
    });
    Validations.of(api.sessionKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The console session key signs tokens that live at most 24 h; rotating it ends every open session, so ' +
        'operators rotate it on demand (docs/console.md) rather than on a schedule.',
    });
    Validations.of(api.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route but the OpenAPI document and the console files requires a session token, which the ' +
        'management Lambda verifies (HS256, one application, at most 24 h); API Gateway authorizers cannot ' +
        'scope a token to the application in the path.',
    });
  }
}

/**
 * The ARN as cdk-nag writes it in a finding id (`<AWS::Region>` for pseudo parameters),
 * flattened by cdk-nag's own function so the two cannot disagree.
 */
function nagArn(scope: IConstruct, arn: string): string {
  return flattenCfnReference(Stack.of(scope).resolve(arn));
}
