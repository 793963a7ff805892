/**
 * The opt-in `tracing` prop (docs/design.md §10 "Traces"): off by default, with no X-Ray
 * permission, setting or tracing mode anywhere; on, active tracing of both functions, the
 * dispatcher told to open its attempt spans, the two X-Ray actions granted (on "*", their only
 * form) and cdk-nag clean with the project's acknowledgement.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { acknowledgeNagFindings } from '../../bin/nag-acknowledgements';
import { ENV } from '../../lambdas/config';
import { WebhookStack } from '../../lib/webhook-stack';
import { logicalId, testApp } from './fixtures';

const XRAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

function synth(tracing?: boolean) {
  const stack = new WebhookStack(testApp(), tracing ? 'Traced' : 'Untraced', tracing ? { tracing } : {});
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: any }>;
  const fn = (construct: IConstruct) => resources[logicalId(stack, construct)]!.Properties;
  const dispatcher = fn(stack.delivery.dispatcher);
  const api = fn(stack.delivery.managementApi!.handler);
  const xrayActions = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .flatMap(
      (r) => r.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>,
    )
    .filter((s) => [s.Action].flat().some((a) => a.startsWith('xray:')));
  return { stack, dispatcher, api, xrayActions };
}

describe('tracing off (the default)', () => {
  const { dispatcher, api, xrayActions } = synth();

  it('sets no tracing mode on either function and grants no X-Ray action', () => {
    expect(dispatcher.TracingConfig).toBeUndefined();
    expect(api.TracingConfig).toBeUndefined();
    expect(xrayActions).toEqual([]);
  });

  it('tells the dispatcher tracing is off', () => {
    expect(dispatcher.Environment.Variables[ENV.tracing]).toBe('false');
  });
});

describe('tracing: true', () => {
  const { stack, dispatcher, api, xrayActions } = synth(true);

  it('turns on active tracing on the dispatcher and the management API', () => {
    expect(dispatcher.TracingConfig).toEqual({ Mode: 'Active' });
    expect(api.TracingConfig).toEqual({ Mode: 'Active' });
    expect(dispatcher.Environment.Variables[ENV.tracing]).toBe('true');
  });

  it('grants exactly the two X-Ray write actions, to each function role', () => {
    expect(xrayActions).toHaveLength(2);
    for (const statement of xrayActions) {
      expect([statement.Action].flat().sort()).toEqual(XRAY_ACTIONS);
      expect(statement.Resource).toBe('*');
    }
  });

  it('is cdk-nag clean with the project acknowledgements, and flags the X-Ray wildcard without them', () => {
    const report = () =>
      new AwsSolutionsChecks(undefined, { verbose: true })
        .validateScope(stack)
        .violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
    expect(
      report()
        .filter((f) => f.startsWith('AwsSolutions-IAM5[Resource::*]'))
        .sort(),
    ).toEqual([
      'AwsSolutions-IAM5[Resource::*] at Traced/Delivery/DispatcherRole/DefaultPolicy/Resource',
      'AwsSolutions-IAM5[Resource::*] at Traced/Delivery/ManagementApi/Role/DefaultPolicy/Resource',
    ]);
    acknowledgeNagFindings(stack.delivery);
    expect(report()).toEqual([]);
  });
});
