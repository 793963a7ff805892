/**
 * What recovering parked deliveries costs (issue 14): parks N deliveries of one connection in
 * local mode's emulators (dynalite, fauxqs; on the test harness's emulator host), then runs `recoverConnection` and measures the
 * wall time of the call, the DynamoDB capacity every call reports (`ReturnConsumedCapacity:
 * INDEXES`, dynalite computes it by DynamoDB's rules), and the SQS calls made. The spread of
 * the re-queued deliveries over time (the bounded rate) is N / rate seconds on top.
 *
 *   npm run bench:recover                  # 1,000 parked deliveries, rate 10/s (the default)
 *   npm run bench:recover -- --count 200 --rate 50
 */

import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { documentClient } from '../lambdas/adapters/dynamodb/client';
import { DynamoParked } from '../lambdas/adapters/dynamodb/parked';
import { deliveryIdFor } from '../lambdas/core/ids';
import { serialiseBody } from '../lambdas/core/payload';
import { WebhookManagement } from '../lambdas/management';
import { localClientConfig } from '../local/bootstrap';
import { startLocalAws } from '../test/support/emulators';

interface Capacity {
  calls: number;
  writeUnits: number;
  readUnits: number;
}

/** Asks every DynamoDB call for its consumed capacity and adds it up, by operation. */
function meter(client: DynamoDBClient): Map<string, Capacity> {
  const byOperation = new Map<string, Capacity>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const output = result.output as { ConsumedCapacity?: unknown };
      const consumed = (
        [] as { WriteCapacityUnits?: number; ReadCapacityUnits?: number; CapacityUnits?: number }[]
      ).concat((output.ConsumedCapacity as never) ?? []);
      const name = context.commandName ?? 'unknown';
      const entry = byOperation.get(name) ?? { calls: 0, writeUnits: 0, readUnits: 0 };
      entry.calls++;
      for (const c of consumed) {
        entry.writeUnits += c.WriteCapacityUnits ?? 0;
        entry.readUnits += c.ReadCapacityUnits ?? 0;
        if (c.WriteCapacityUnits === undefined && c.ReadCapacityUnits === undefined) {
          // Some emulators report only CapacityUnits: writes for writes, reads for reads.
          if (/Put|Update|Delete/.test(name)) entry.writeUnits += c.CapacityUnits ?? 0;
          else entry.readUnits += c.CapacityUnits ?? 0;
        }
      }
      byOperation.set(name, entry);
      return result;
    },
    { step: 'initialize', name: 'benchCapacityMeter' },
  );
  return byOperation;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '10' },
      // Accepted for the command lines of older docs: the report is always JSON.
      json: { type: 'boolean', default: false },
    },
  });
  const count = Number(values.count);
  const rate = Number(values.rate);
  const emulators = await startLocalAws();
  try {
    const { resources } = emulators;
    Object.assign(process.env, emulators.env);
    const dynamodb = new DynamoDBClient(localClientConfig(emulators.endpoints.dynamodb, emulators.region));
    const sqs = new SQSClient(localClientConfig(emulators.endpoints.sqs, emulators.region));
    let sqsCalls = 0;
    sqs.middlewareStack.add(
      (next) => async (args) => {
        sqsCalls++;
        return next(args);
      },
      { step: 'initialize', name: 'benchSqsCounter' },
    );
    const management = new WebhookManagement({
      resources: { ...resources },
      clients: { dynamodb, sqs },
      allowLoopback: true,
      allowedPorts: [443, 8443],
    });
    const con = await management.connections.create({
      applicationId: 'app_bench',
      name: 'Recovering endpoint',
      url: 'https://localhost:8443/hooks',
    });
    const store = new DynamoParked({
      tableName: resources.parkedTable,
      client: documentClient(dynamodb),
    });
    const start = Date.now() - 86_400_000;
    let bodyBytes = 0;
    for (let i = 0; i < count; i++) {
      const occurredAt = new Date(start + i * 1000).toISOString();
      const body = serialiseBody({
        event: 'user.identified',
        timestamp: occurredAt,
        user: {
          id: `usr_${i}`,
          email: `user${i}@example.com`,
          name: 'Ada Lovelace',
          metadata: { plan: 'pro' },
        },
        application: { id: 'app_bench', name: 'Bench' },
      });
      bodyBytes += Buffer.byteLength(body);
      const eventId = `evt_bench_${i}`;
      await store.park({
        deliveryId: deliveryIdFor(eventId, con.connectionId, start + i * 1000),
        connectionId: con.connectionId,
        applicationId: 'app_bench',
        eventId,
        reason: 'exhausted',
        lastError: 'receiver answered HTTP 503',
        lastOutcome: 'http_error',
        lastStatusCode: 503,
        attempts: 4,
        parkedAt: new Date(start + i * 1000 + 7000).toISOString(),
        body,
        firstAttemptAt: occurredAt,
        expiresAt: Math.floor(Date.now() / 1000) + 30 * 86_400,
      });
    }
    const capacity = meter(dynamodb);
    sqsCalls = 0;
    const began = performance.now();
    const result = await management.recoverConnection(con.connectionId, { ratePerSecond: rate });
    const ms = Math.round(performance.now() - began);
    const operations = Object.fromEntries(capacity);
    const writeUnits = [...capacity.values()].reduce((sum, c) => sum + c.writeUnits, 0);
    const readUnits = [...capacity.values()].reduce((sum, c) => sum + c.readUnits, 0);
    const report = {
      parked: count,
      averageBodyBytes: Math.round(bodyBytes / count),
      ratePerSecond: rate,
      requeued: result.requeued,
      remaining: result.remaining,
      recoverCallMs: ms,
      deliverySpreadSeconds: Math.ceil(result.requeued / rate),
      dynamodb: {
        writeUnits,
        readUnits,
        writeUnitsPerDelivery: writeUnits / Math.max(1, result.requeued),
        operations,
      },
      sqsCalls,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    dynamodb.destroy();
    sqs.destroy();
  } finally {
    await emulators.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench recover: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
