/** A deployed stack's resources from its outputs (management/stack.ts), as the CLI and library find them. */

import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { resourcesFromStack } from '../../../lambdas/adapters/cloudformation/stack';
import { RateLimitActivityReader } from '../../../lambdas/management/rate-activity';
import { connection, DEPLOYED_OUTPUTS, describedStack } from '../../support/fixtures';
import { MemoryRateWindows } from '../../support/memory';

function stackWith(outputs: Record<string, string>): CloudFormationClient {
  const client = new CloudFormationClient({ region: 'eu-west-1' });
  mockClient(client).on(DescribeStacksCommand, { StackName: 'Prod' }).resolves(describedStack(outputs));
  return client;
}

it("finds the rate windows table and the stack's default rate limit, so rate-limit activity can be read", async () => {
  const resources = await resourcesFromStack(
    'Prod',
    stackWith({ ...DEPLOYED_OUTPUTS, RateWindowsTableName: 'Prod-RateWindows-1A2B', DefaultRateLimit: '25' }),
  );
  expect(resources.rateWindowsTable).toBe('Prod-RateWindows-1A2B');
  expect(resources.defaultRateLimit).toBe(25);
  // A connection without a limit of its own is judged by the stack's default, read from the table.
  const activity = await new RateLimitActivityReader({ resources }, new MemoryRateWindows()).of(
    connection('con_a'),
  );
  expect(activity).toMatchObject({ rateLimit: 25, source: 'default', deferred: 0, waiting: false });
});

it('leaves both unset for a stack without them (deployed before they existed, or no default limit)', async () => {
  const resources = await resourcesFromStack(
    'Prod',
    stackWith({ ...DEPLOYED_OUTPUTS, DefaultRateLimit: 'many' }),
  );
  expect(resources.rateWindowsTable).toBeUndefined();
  expect(resources.defaultRateLimit).toBeUndefined();
});

it("reads the stack's secret rotation overlap, 0 included, and leaves it unset on a stack without it", async () => {
  const off = await resourcesFromStack(
    'Prod',
    stackWith({ ...DEPLOYED_OUTPUTS, SecretRotationOverlapSeconds: '0' }),
  );
  expect(off.secretRotationOverlapSeconds).toBe(0);
  const day = await resourcesFromStack(
    'Prod',
    stackWith({ ...DEPLOYED_OUTPUTS, SecretRotationOverlapSeconds: '86400' }),
  );
  expect(day.secretRotationOverlapSeconds).toBe(86_400);
  const older = await resourcesFromStack('Prod', stackWith(DEPLOYED_OUTPUTS));
  expect(older.secretRotationOverlapSeconds).toBeUndefined();
});

it('reads delivery search from the DeliverySearch output: off only when it says off (a stack that predates it searches)', async () => {
  const off = await resourcesFromStack('Prod', stackWith({ ...DEPLOYED_OUTPUTS, DeliverySearch: 'off' }));
  expect(off.deliverySearch).toBe(false);
  const on = await resourcesFromStack('Prod', stackWith({ ...DEPLOYED_OUTPUTS, DeliverySearch: 'on' }));
  expect(on.deliverySearch).toBe(true);
  expect((await resourcesFromStack('Prod', stackWith(DEPLOYED_OUTPUTS))).deliverySearch).toBe(true);
});
