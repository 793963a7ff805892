/**
 * Generated from lambdas/shapes/connection.ts by `npm run openapi` (scripts/connection-types.ts):
 * do not edit. A connection's types without zod, for the core, the console and the package's
 * type declarations; the schema there is the one declaration (docs/architecture.md).
 */

/** A connection as the API returns it (custom header values hidden, health always present). */
export type ConnectionView = {
  connectionId: string;
  applicationId: string;
  type: 'webhook';
  name: string;
  url: string;
  method: 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  enabled: boolean;
  health: {
    state: 'healthy' | 'failing' | 'disabled';
    consecutiveFailures: number;
    failingSince?: string | undefined;
    lastSuccessAt?: string | undefined;
    lastFailureAt?: string | undefined;
  };
  createdAt: string;
  updatedAt: string;
  rateLimit?: number | undefined;
  secretVersion?: string | undefined;
};

/** Endpoint health as the API shows it (docs/design.md §9): no write version. */
export type HealthView = {
  state: 'healthy' | 'failing' | 'disabled';
  consecutiveFailures: number;
  failingSince?: string | undefined;
  lastSuccessAt?: string | undefined;
  lastFailureAt?: string | undefined;
};

/** What a connection's owner sets on it, as stored and shown (name, url, method, headers, …). */
export type ConnectionSettings = {
  name: string;
  url: string;
  method: 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  enabled: boolean;
  rateLimit?: number | undefined;
};

/** A change of settings: any subset; null clears an optional one (a connection's own rate limit). */
export type SettingsChange = {
  name?: string | undefined;
  url?: string | undefined;
  method?: 'POST' | 'PUT' | 'PATCH' | undefined;
  headers?: Record<string, string> | undefined;
  enabled?: boolean | undefined;
  rateLimit?: number | null | undefined;
};

/** The body of `POST …/connections`, as validated. */
export type CreateConnectionRequest = {
  name: string;
  url: string;
  enabled?: boolean | undefined;
  method?: 'POST' | 'PUT' | 'PATCH' | undefined;
  headers?: Record<string, string> | undefined;
  rateLimit?: number | null | undefined;
  type?: 'webhook' | undefined;
};

/** The body of `PATCH …/connections/{id}`, as validated. */
export type UpdateConnectionRequest = {
  name?: string | undefined;
  url?: string | undefined;
  method?: 'POST' | 'PUT' | 'PATCH' | undefined;
  enabled?: boolean | undefined;
  headers?: Record<string, string | null> | undefined;
  rateLimit?: number | null | undefined;
};
