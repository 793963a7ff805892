/**
 * console/types.ts is kept by hand, but for a connection's types (Connection, Health,
 * ConnectionInput), which are the API's own, derived from its schema (lambdas/shapes/connection.ts,
 * test/unit/connection-shape.test.ts). This checks every other field the console reads against
 * the API's OpenAPI document (docs/openapi.json, itself checked against the route definitions).
 * The listings below are typed from the console's interfaces, so a field added to or dropped
 * from an interface must be added here too, and then must exist in the API.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ApiIndex,
  type Attempt,
  DELIVERY_STATES,
  type Delivery,
  type DeliverySummary,
  HEALTH_STATES,
  METHODS,
  OUTCOMES,
  PARK_REASONS,
  type ParkedDelivery,
  type RecoverResult,
  type ResendResult,
  type RotatedSecret,
  STATS_BUCKETS,
  type Stats,
  type StatsBucket,
} from '../../../console/types';

type Presence<T> = { [K in keyof T]-?: object extends Pick<T, K> ? 'optional' : 'required' };

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: string[];
  $ref?: string;
  allOf?: Schema[];
}

const doc = JSON.parse(readFileSync(resolve(__dirname, '../../../docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: Schema }> }>>;
  components: { schemas: Record<string, Schema> };
};
const schemas = doc.components.schemas;
/** A schema with references followed and `allOf` parts merged. */
function deref(schema: Schema): Schema {
  const s = schema.$ref ? schemas[schema.$ref.split('/').at(-1)!]! : schema;
  if (!s.allOf) return s;
  const parts = s.allOf.map(deref);
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
    required: parts.flatMap((p) => p.required ?? []),
  };
}

/** The console's fields that the schema lacks or marks differently. */
function mismatches(schema: Schema, fields: Record<string, 'required' | 'optional'>): string[] {
  const s = deref(schema);
  const required = new Set(s.required ?? []);
  return Object.entries(fields).flatMap(([name, presence]) => {
    if (!s.properties?.[name]) return [`${name}: not in the API`];
    if ((presence === 'required') !== required.has(name))
      return [`${name}: the API has it ${required.has(name) ? 'required' : 'optional'}`];
    return [];
  });
}

const PARKED: Presence<ParkedDelivery> = {
  deliveryId: 'required',
  connectionId: 'required',
  applicationId: 'required',
  eventId: 'required',
  reason: 'required',
  lastError: 'optional',
  lastOutcome: 'optional',
  lastStatusCode: 'optional',
  attempts: 'required',
  parkedAt: 'required',
};
const RECOVERED: Presence<RecoverResult> = { requeued: 'required', remaining: 'required' };
const ATTEMPT: Presence<Attempt> = {
  deliveryId: 'required',
  attempt: 'required',
  eventId: 'required',
  connectionId: 'required',
  applicationId: 'required',
  userId: 'required',
  event: 'required',
  method: 'required',
  target: 'required',
  requestedAt: 'required',
  durationMs: 'required',
  outcome: 'required',
  statusCode: 'optional',
  responseSnippet: 'optional',
  error: 'optional',
  nextAttemptAt: 'optional',
  final: 'required',
  test: 'optional',
  traceId: 'optional',
  sendId: 'optional',
  expiresAt: 'required',
  requestHeaders: 'optional',
  resentAs: 'optional',
  trigger: 'optional',
};
const ROTATED: Presence<RotatedSecret> = {
  secret: 'required',
  secretVersion: 'required',
  switchAt: 'required',
  previousVersion: 'optional',
};
const DELIVERY: Presence<Delivery> = {
  deliveryId: 'required',
  connectionId: 'required',
  attempts: 'required',
  body: 'optional',
  bodyUnavailable: 'optional',
};
const SUMMARY: Presence<DeliverySummary> = {
  deliveryId: 'required',
  connectionId: 'required',
  eventId: 'required',
  userId: 'required',
  event: 'required',
  firstAttemptAt: 'required',
  lastAttemptAt: 'required',
  attempts: 'required',
  outcome: 'required',
  statusCode: 'optional',
  state: 'required',
  test: 'optional',
};
const RESENT: Presence<ResendResult> = {
  deliveryId: 'required',
  connectionId: 'required',
  attempt: 'required',
};
const STATS: Presence<Stats> = {
  since: 'required',
  until: 'required',
  bucketSeconds: 'required',
  buckets: 'required',
  totals: 'required',
  read: 'required',
};
const BUCKET: Presence<StatsBucket> = {
  start: 'required',
  total: 'required',
  outcomes: 'required',
  latencyMs: 'required',
};

describe("the console's API types", () => {
  it('match the OpenAPI document field by field', () => {
    expect(mismatches(schemas.Attempt!, ATTEMPT)).toEqual([]);
    expect(mismatches(schemas.ParkedDelivery!, PARKED)).toEqual([]);
    expect(mismatches(schemas.ParkedPage!, { data: 'required', nextCursor: 'required' })).toEqual([]);
    expect(mismatches(schemas.RecoverResult!, RECOVERED)).toEqual([]);
    expect(mismatches(schemas.RetryResult!, { requeued: 'required', connectionId: 'required' })).toEqual([]);
    expect(mismatches(schemas.ResendResult!, RESENT)).toEqual([]);
    expect(mismatches(schemas.RotatedSecret!, ROTATED)).toEqual([]);
    expect(
      mismatches(schemas.Secret!, { secret: 'required', secretVersion: 'optional', next: 'optional' }),
    ).toEqual([]);
    expect(mismatches(schemas.Delivery!, DELIVERY)).toEqual([]);
    expect(mismatches(schemas.DeliverySummary!, SUMMARY)).toEqual([]);
    expect(schemas.DeliverySummary!.properties!.state!.enum).toEqual([...DELIVERY_STATES]);
    expect(mismatches(schemas.DeliverySummaryPage!, { data: 'required', nextCursor: 'required' })).toEqual(
      [],
    );
    expect(mismatches(schemas.Stats!, STATS)).toEqual([]);
    expect(mismatches(schemas.Stats!.properties!.buckets!.items!, BUCKET)).toEqual([]);
    expect(
      mismatches(schemas.ApiIndex!, {
        mode: 'required',
        consoleCommand: 'required',
        recoveryChecks: 'required',
      } satisfies Presence<ApiIndex>),
    ).toEqual([]);
    expect(mismatches(schemas.ConnectionPage!, { data: 'required', nextCursor: 'required' })).toEqual([]);
    expect(
      mismatches(schemas.Error!.properties!.error!, {
        code: 'required',
        message: 'required',
        field: 'optional',
      }),
    ).toEqual([]);
  });

  it('send a type the create body accepts', () => {
    expect(deref(schemas.CreateConnection!).properties?.type?.enum ?? ['webhook']).toContain('webhook');
  });

  it('know the same methods, outcomes, filters and stats buckets', () => {
    expect(schemas.Connection!.properties!.method!.enum).toEqual([...METHODS]);
    expect(schemas.Attempt!.properties!.outcome!.enum).toEqual([...OUTCOMES]);
    expect(schemas.Health!.properties!.state!.enum).toEqual([...HEALTH_STATES]);
    expect(schemas.ParkedDelivery!.properties!.reason!.enum).toEqual([...PARK_REASONS]);
    const base = '/api/v1/applications/{applicationId}/connections/{connectionId}';
    const query = (path: string) =>
      Object.fromEntries(
        (doc.paths[path]!.get!.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, p.schema]),
      );
    const attempts = query(`${base}/attempts`);
    expect(Object.keys(attempts).sort()).toEqual(['cursor', 'final', 'limit', 'outcome', 'since', 'until']);
    expect(attempts.outcome!.enum).toEqual([...OUTCOMES]);
    expect(attempts.final!.enum).toEqual(['true', 'false']);
    const stats = query(`${base}/stats`);
    expect(stats.bucket!.enum).toEqual([...STATS_BUCKETS]);
    expect(Object.keys(query('/api/v1/applications/{applicationId}/connections')).sort()).toEqual([
      'cursor',
      'limit',
    ]);
  });
});
