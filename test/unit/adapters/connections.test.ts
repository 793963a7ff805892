import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { documentClient } from '../../../lambdas/adapters/dynamodb/client';
import { DynamoConnections } from '../../../lambdas/adapters/dynamodb/connections';
import type { Connection } from '../../../lambdas/core/types';

const doc = mockClient(DynamoDBDocumentClient);
const store = () =>
  new DynamoConnections({ tableName: 'connections', client: documentClient(new DynamoDBClient({})) });
const con = (id: string) => ({ connectionId: id, applicationId: 'app_a' }) as Connection;

beforeEach(() => doc.reset());

describe('DynamoConnections.listByApplication', () => {
  it('reads every page of the application index, in order', async () => {
    doc
      .on(QueryCommand)
      .resolvesOnce({ Items: [con('con_1'), con('con_2')], LastEvaluatedKey: { connectionId: 'con_2' } })
      .resolvesOnce({ Items: [con('con_3')] });
    const found = await store().listByApplication('app_a');
    expect(found.map((c) => c.connectionId)).toEqual(['con_1', 'con_2', 'con_3']);
    const inputs = doc.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(inputs).toHaveLength(2);
    expect(inputs[0]).toMatchObject({
      TableName: 'connections',
      IndexName: 'byApplication',
      ExpressionAttributeValues: { ':app': 'app_a' },
    });
    expect(inputs[1]!.ExclusiveStartKey).toEqual({ connectionId: 'con_2' });
  });
});
