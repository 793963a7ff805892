/**
 * A webhook connection, declared once (docs/architecture.md "Adding a field to a connection"):
 * the schema below is what the management API shows, documents (OpenAPI `Connection`) and
 * validates requests with (`CreateConnection`, `UpdateConnection`). Every other shape of a
 * connection is derived from it: the stored one (core/types.ts Connection), an update's
 * changes (core/stores.ts), the management library's inputs (management/types.ts) and the
 * console's types (console/types.ts).
 *
 * They read the types at the end of this file from connection-types.ts, which `npm run openapi`
 * writes from them (scripts/connection-types.ts): the same types without zod, so neither the
 * dispatcher's bundle, nor the console's, nor the package's published type declarations need
 * zod (a development dependency, bundled into the API alone). This module imports only zod and
 * fixed values of the core. Rules a value must follow (HTTPS, ports, header names, the
 * rate-limit ceiling) are not repeated here: the management library checks them, with the code
 * the CLI and the dispatcher use.
 */

import { z } from '@hono/zod-openapi';
import { ALLOWED_METHODS, HIDDEN_HEADER_VALUE, MAX_RATE_LIMIT, MIN_RATE_LIMIT } from '../core/constants';
import { HEALTH_STATES } from '../core/health';

export const HealthSchema = z
  .object({
    state: z.enum(HEALTH_STATES).openapi({
      description:
        'healthy; failing after failingAfter exhausted deliveries in a row; disabled after disableAfter (when set) until enabled again',
    }),
    consecutiveFailures: z.number().int().openapi({ description: 'exhausted deliveries in a row' }),
    failingSince: z.string().optional(),
    lastSuccessAt: z.string().optional(),
    lastFailureAt: z.string().optional(),
    downSince: z.string().optional().openapi({
      description: 'when the endpoint went down: the first exhausted delivery since its last success',
    }),
    nextCheckAt: z.string().optional().openapi({
      description:
        'when the next recovery check sends the oldest parked delivery again; absent: none is scheduled',
    }),
  })
  .openapi('Health');

/**
 * The connection as the API shows it. A new field goes here, once: it is then stored, accepted
 * by create and update (unless the system sets it, SET_BY_SYSTEM) and returned.
 */
const connection = z.object({
  connectionId: z.string(),
  applicationId: z.string(),
  type: z.literal('webhook'),
  name: z.string(),
  url: z.string(),
  method: z.enum(ALLOWED_METHODS),
  headers: z
    .record(z.string(), z.string())
    .openapi({ description: `header names; every value reads ${HIDDEN_HEADER_VALUE}` }),
  enabled: z.boolean(),
  rateLimit: z.number().int().optional().openapi({
    description: 'deliveries per second at most; absent: the stack default applies, if set',
  }),
  recoveryProbes: z.boolean().optional().openapi({
    description:
      'false: never check the endpoint automatically while deliveries are parked (press Recover instead); absent or true: checked when the stack probes (docs/operations.md)',
  }),
  health: HealthSchema,
  secretVersion: z.string().optional().openapi({ description: 'the secret that signs deliveries now' }),
  nextSecretVersion: z.string().optional().openapi({
    description: 'a rotated secret that signs from secretSwitchAt on; absent: no switch ahead',
  }),
  secretSwitchAt: z.string().optional().openapi({ description: 'when nextSecretVersion starts signing' }),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ConnectionSchema = connection.openapi('Connection');

/** The fields the system sets; its owner sets every other one, on create and update. */
const SET_BY_SYSTEM = {
  connectionId: true,
  applicationId: true,
  type: true,
  health: true,
  secretVersion: true,
  nextSecretVersion: true,
  secretSwitchAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** What a connection's owner sets, as stored and shown. */
const settings = connection.omit(SET_BY_SYSTEM);

/** In a request, null clears the connection's own limit (undefined in a body means: unchanged). */
const rateLimitIn = z
  .number()
  .nullable()
  .openapi({
    example: 50,
    description: `deliveries per second this connection receives at most, a whole number from ${MIN_RATE_LIMIT} to the stack's ceiling (rateLimitCeiling, 1,000 unless its operator sets up to ${MAX_RATE_LIMIT}; above it: 422), across every dispatcher and both queues; a delivery over it waits (no attempt is used). null: none of its own (the stack default applies, if set)`,
  });

/** Only name and url are required: every other setting has a default or may be absent. */
export const CreateConnectionBody = settings
  .partial()
  .extend({
    name: settings.shape.name.openapi({ example: 'CRM' }),
    url: settings.shape.url.openapi({ example: 'https://crm.example.com/hooks' }),
    method: settings.shape.method.optional().openapi({ description: 'default POST' }),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        example: { Authorization: 'Bearer …' },
        description: 'custom headers sent with every delivery',
      }),
    rateLimit: rateLimitIn.optional(),
    type: connection.shape.type.optional(),
  })
  .strict()
  .openapi('CreateConnection');

/** Any subset of the settings; headers are the complete new set, and a null value keeps a stored one. */
export const UpdateConnectionBody = settings
  .partial()
  .extend({
    headers: z
      .record(z.string(), z.string().nullable())
      .optional()
      .openapi({
        description:
          "the complete new set of custom headers; a null value keeps that header's stored value (values are never returned, so an edit can keep them without knowing them); a header left out is removed",
        example: { Authorization: null, 'X-Tenant': 'acme' },
      }),
    rateLimit: rateLimitIn.optional(),
  })
  .strict()
  .openapi('UpdateConnection');

/** A connection as the API returns it (custom header values hidden, health always present). */
export type ConnectionView = z.infer<typeof ConnectionSchema>;
/** Endpoint health as the API shows it (docs/design.md §9): no write version. */
export type HealthView = z.infer<typeof HealthSchema>;
/** What a connection's owner sets on it, as stored and shown (name, url, method, headers, …). */
export type ConnectionSettings = z.infer<typeof settings>;
/** An optional field of `T` may be null in a change: null clears it (the stores REMOVE it). */
export type Clearable<T> = {
  [K in keyof T]?: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K];
};
/** A change of settings: any subset; null clears an optional one (a connection's own rate limit). */
export type SettingsChange = Clearable<ConnectionSettings>;
/** The body of `POST …/connections`, as validated. */
export type CreateConnectionRequest = z.infer<typeof CreateConnectionBody>;
/** The body of `PATCH …/connections/{id}`, as validated. */
export type UpdateConnectionRequest = z.infer<typeof UpdateConnectionBody>;
