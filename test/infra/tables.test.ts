import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  ATTEMPTS_TABLE,
  CONNECTIONS_TABLE,
  PARKED_TABLE,
  RATE_WINDOWS_TABLE,
} from '../../lambdas/adapters/dynamodb/tables';
import type { WebhookStack } from '../../lib/webhook-stack';
import { customStack, defaultStack, logicalId } from './fixtures';

describe('DynamoDB tables', () => {
  let stack: WebhookStack;
  let defaults: Template;
  let custom: Template;
  let connections: {
    Properties: Record<string, unknown>;
    DeletionPolicy?: string;
    UpdateReplacePolicy?: string;
  };
  let attempts: typeof connections;

  beforeAll(() => {
    stack = defaultStack();
    defaults = Template.fromStack(stack);
    const resources = defaults.toJSON().Resources;
    connections = resources[logicalId(stack, stack.delivery.connectionsTable)];
    attempts = resources[logicalId(stack, stack.delivery.attemptsTable)];
    custom = Template.fromStack(customStack().stack);
  });

  it('creates exactly the connections, attempt log, parked deliveries and rate windows tables', () => {
    defaults.resourceCountIs('AWS::DynamoDB::Table', 4);
  });

  it('keeps rate windows on demand, keyed by window, expired by TTL, with no index', () => {
    const windows = defaults.toJSON().Resources[logicalId(stack, stack.delivery.rateWindowsTable)];
    expect(windows.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: RATE_WINDOWS_TABLE.ttlAttribute, Enabled: true },
      KeySchema: [{ AttributeName: RATE_WINDOWS_TABLE.partitionKey, KeyType: 'HASH' }],
    });
    expect(windows.Properties.GlobalSecondaryIndexes).toBeUndefined();
  });

  it('keys parked deliveries by connection and delivery id, with TTL and a body-free byApplication index', () => {
    const parked = defaults.toJSON().Resources[logicalId(stack, stack.delivery.parkedTable)];
    const index = PARKED_TABLE.byApplicationIndex;
    expect(parked.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: PARKED_TABLE.ttlAttribute, Enabled: true },
      KeySchema: [
        { AttributeName: PARKED_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: PARKED_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
        },
      ],
    });
    expect(JSON.stringify(parked.Properties.GlobalSecondaryIndexes)).not.toContain('"body"');
  });

  it('bills both tables on demand, with point-in-time recovery and encryption at rest', () => {
    for (const table of [connections, attempts]) {
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
    }
  });

  it('keys connections by connection id', () => {
    expect(connections.Properties.KeySchema).toEqual([
      { AttributeName: CONNECTIONS_TABLE.partitionKey, KeyType: 'HASH' },
    ]);
  });

  it('finds the connections of an application through the byApplication index', () => {
    const index = CONNECTIONS_TABLE.byApplicationIndex;
    expect(connections.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
  });

  it('keys attempts by connection id and delivery/attempt sort key', () => {
    expect(attempts.Properties.KeySchema).toEqual([
      { AttributeName: ATTEMPTS_TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: ATTEMPTS_TABLE.sortKey, KeyType: 'RANGE' },
    ]);
  });

  it('expires attempt log items through TTL', () => {
    expect(attempts.Properties.TimeToLiveSpecification).toEqual({
      AttributeName: ATTEMPTS_TABLE.ttlAttribute,
      Enabled: true,
    });
  });

  it('gives the attempt log two indexes: the sparse finalFailures, and byAttemptTime without the body', () => {
    const index = ATTEMPTS_TABLE.finalFailuresIndex;
    const byTime = ATTEMPTS_TABLE.byTimeIndex;
    expect(attempts.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: byTime.name,
        KeySchema: [
          { AttributeName: ATTEMPTS_TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: 'requestedAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...byTime.projected] },
      },
    ]);
    expect(byTime.projected).not.toContain('body');
    expect(attempts.Properties.LocalSecondaryIndexes).toBeUndefined();
  });

  it('retains both tables when they leave the stack by default', () => {
    for (const table of [connections, attempts]) {
      expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('deletes the tables and the log group with the stack when removalPolicy is DESTROY', () => {
    custom.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
    custom.hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  it('takes no table names from the stack: tools read them from the outputs', () => {
    defaults.allResourcesProperties('AWS::DynamoDB::Table', { TableName: Match.absent() });
  });
});
