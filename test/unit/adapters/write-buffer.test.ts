/**
 * The writes a batch holds until it ends (lambdas/adapters/dynamodb/write-buffer.ts): sent with
 * BatchWriteItem, 25 a call, the same key once, what DynamoDB leaves unprocessed sent again, and
 * a flush that waits for one already under way.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteBuffer } from '../../../lambdas/adapters/dynamodb/write-buffer';

type Request = { PutRequest: { Item: Record<string, unknown> } };
type Call = Record<string, Request[]>;

/** A document client that answers BatchWriteItem, leaving `unprocessed(call)` of each call. */
function fakeClient(unprocessed: (call: Call, n: number) => Call = () => ({})) {
  const calls: Call[] = [];
  const client = {
    send: async (command: { input: { RequestItems: Call } }) => {
      calls.push(command.input.RequestItems);
      return { UnprocessedItems: unprocessed(command.input.RequestItems, calls.length) };
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, calls };
}
const noWait = async () => {};
const items = (call: Call) =>
  Object.values(call)
    .flat()
    .map((r) => r.PutRequest.Item.k);

describe('WriteBuffer', () => {
  it('writes what was held, 25 items a call across tables, and the same key once (the last)', async () => {
    const { client, calls } = fakeClient();
    const buffer = new WriteBuffer(client, noWait);
    for (let i = 0; i < 30; i++) buffer.put('attempts', `a${i}`, { k: `a${i}` });
    buffer.put('windows', 'c1', { k: 'c1', state: 'sending' });
    buffer.put('windows', 'c1', { k: 'c1', state: 'settled' });
    expect(buffer.size).toBe(31);
    await buffer.flush();
    expect(calls.map((c) => items(c).length)).toEqual([25, 6]);
    expect(calls[1]!.windows).toEqual([{ PutRequest: { Item: { k: 'c1', state: 'settled' } } }]);
    expect(buffer.size).toBe(0);
    await buffer.flush();
    expect(calls).toHaveLength(2); // nothing held, nothing sent
  });

  it('sends again what DynamoDB left unprocessed, with doubling waits', async () => {
    const waits: number[] = [];
    const { client, calls } = fakeClient((call, n): Call => (n < 3 ? { t: call.t!.slice(1) } : {}));
    const buffer = new WriteBuffer(client, async (ms) => {
      waits.push(ms);
    });
    for (const k of ['x', 'y', 'z']) buffer.put('t', k, { k });
    await buffer.flush();
    expect(calls.map(items)).toEqual([['x', 'y', 'z'], ['y', 'z'], ['z']]);
    expect(waits).toEqual([25, 50]);
  });

  it('rejects naming how many were not written once its tries run out', async () => {
    const { client, calls } = fakeClient((call) => call);
    const buffer = new WriteBuffer(client, noWait);
    buffer.put('t', 'a', { k: 'a' });
    buffer.put('t', 'b', { k: 'b' });
    await expect(buffer.flush()).rejects.toThrow('2 of 2 writes after the batch were not written');
    expect(calls).toHaveLength(5);
  });

  it("waits for a flush already under way, so a batch's result follows its writes", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const calls: string[] = [];
    const client = {
      send: async (command: { input: { RequestItems: Call } }) => {
        const [first] = items(command.input.RequestItems) as string[];
        calls.push(first!);
        if (first === 'first') await gate;
        return {};
      },
    } as unknown as DynamoDBDocumentClient;
    const buffer = new WriteBuffer(client, noWait);
    buffer.put('t', 'first', { k: 'first' });
    const one = buffer.flush();
    buffer.put('t', 'second', { k: 'second' });
    let secondDone = false;
    const two = buffer.flush().then(() => {
      secondDone = true;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual(['first', 'second']);
    expect(secondDone).toBe(false); // its own items are written, the other batch's are not yet
    release();
    await Promise.all([one, two]);
    expect(secondDone).toBe(true);
  });
});
