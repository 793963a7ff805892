import { Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { acknowledgeNagFindings } from '../../bin/nag-acknowledgements';
import { WebhookDelivery } from '../../lib/webhook-delivery';
import { WebhookStack } from '../../lib/webhook-stack';
import { testApp } from './fixtures';

/** Findings of the AwsSolutions pack, as `rule at construct path`. */
function findings(stack: Stack, severity: 'error' | 'warning'): string[] {
  const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
  return report.violations
    .filter((v) => v.severity === severity)
    .flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
}

describe('cdk-nag AwsSolutions checks', () => {
  let envAgnostic: WebhookStack;
  let deployed: WebhookStack;

  beforeAll(() => {
    const app = testApp();
    envAgnostic = new WebhookStack(app, 'Webhooks');
    deployed = new WebhookStack(app, 'PinnedWebhooks', {
      env: { account: '111122223333', region: 'eu-west-1' },
    });
    // What bin/app.ts does: the project's acknowledgements, with their reasons.
    acknowledgeNagFindings(envAgnostic.delivery);
    acknowledgeNagFindings(deployed.delivery);
  });

  it('reports no error and no warning on the stack', () => {
    expect(findings(envAgnostic, 'error')).toEqual([]);
    expect(findings(envAgnostic, 'warning')).toEqual([]);
  });

  it('reports nothing on a stack pinned to an account and region', () => {
    expect(findings(deployed, 'error')).toEqual([]);
    expect(findings(deployed, 'warning')).toEqual([]);
  });

  it('leaves no error or warning annotation on the stack', () => {
    const annotations = Annotations.fromStack(envAgnostic);
    expect(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
    expect(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('flags the management API findings the stack acknowledges when the construct is used bare', () => {
    const stack = new Stack(testApp(), 'BareApi');
    new WebhookDelivery(stack, 'Delivery');
    expect(findings(stack, 'error').sort()).toEqual(
      [
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:webhooks/BareApi/*] at BareApi/Delivery/DispatcherRole/DefaultPolicy/Resource',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:webhooks/BareApi/*] at BareApi/Delivery/ManagementApi/Role/DefaultPolicy/Resource',
        'AwsSolutions-SMG4 at BareApi/Delivery/ManagementApi/ConsoleSessionKey/Resource',
        'AwsSolutions-APIG4 at BareApi/Delivery/ManagementApi/HttpApi/DefaultRoute/Resource',
      ].sort(),
    );
  });

  it('flags only the secret-prefix wildcard on a construct without the acknowledgement', () => {
    const stack = new Stack(testApp(), 'Bare');
    new WebhookDelivery(stack, 'Delivery', { managementApi: false });
    expect(findings(stack, 'warning')).toEqual([]);
    expect(findings(stack, 'error')).toEqual([
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:webhooks/Bare/*]' +
        ' at Bare/Delivery/DispatcherRole/DefaultPolicy/Resource',
    ]);
  });
});
