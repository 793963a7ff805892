/**
 * The one typed client of the management API (docs/design.md §8). Every page fetches through it;
 * it knows the routes, the JSON shapes (console/types.ts) and the error shape, and turns a 401
 * into one event the app answers with the "session expired" page.
 */

import { type ErrorStage, WebhookError } from '../lambdas/core/errors';
import type {
  ApiErrorBody,
  ApiIndex,
  Attempt,
  AttemptFilters,
  Connection,
  ConnectionInput,
  Delivery,
  DeliveryFilters,
  DeliverySummary,
  Page,
  ParkedDelivery,
  RateLimitActivity,
  RecoverResult,
  ResendResult,
  RetryResult,
  RotatedSecret,
  RotateSecretChoice,
  Secret,
  Stats,
  StatsWindow,
} from './types';

/**
 * A failed call: the API's code, message and field, or a network failure (status 0). Its stage
 * (core/errors.ts): the request's input for a 4xx, the service or the network otherwise.
 */
export class ApiCallError extends WebhookError {
  override readonly name = 'ApiCallError';
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly field?: string,
  ) {
    super(code, message);
  }

  get stage(): ErrorStage {
    return this.status >= 400 && this.status < 500 ? 'input' : 'infrastructure';
  }
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Base URL of the API, ending in `/api/v1`. */
  baseUrl: string;
  applicationId: string;
  token: string;
  fetch?: Fetch;
  /** Called on a 401 with the API's error: the session is missing, expired or not accepted. */
  onUnauthorized?: (error: ApiCallError) => void;
}

/** `…/console/` → `…/api/v1`: the API sits beside the console on the same origin (and stage). */
export function apiBaseFor(consoleHref: string): string {
  return new URL('../api/v1', consoleHref).href;
}

/** What the CLI command says when the API could not be asked (the deployed form: no `--local`). */
export const DEFAULT_CONSOLE_COMMAND = 'npx webhooks console --application {applicationId}';

/**
 * The API's index (`GET /api/v1`): it needs no session, so the pages shown without one (an
 * expired or invalid link) can still learn where the API runs. Undefined when it cannot be read.
 */
export async function fetchApiIndex(baseUrl: string, fetchImpl: Fetch = globalThis.fetch.bind(globalThis)) {
  try {
    const response = await fetchImpl(baseUrl.replace(/\/$/, ''), { headers: { accept: 'application/json' } });
    if (!response.ok) return undefined;
    const body = (await response.json()) as Partial<ApiIndex> | null;
    return typeof body?.consoleCommand === 'string' && (body.mode === 'local' || body.mode === 'deployed')
      ? ({
          mode: body.mode,
          consoleCommand: body.consoleCommand,
          // An older API's index does not say: its deployment checks by default.
          recoveryChecks: body.recoveryChecks !== false,
        } satisfies ApiIndex)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a link's session works, asked before it may replace the tab's live session: the
 * signature can only be checked by the API. The cheapest authenticated read is one connection of
 * the application's list. A 401 is `invalid` (or `expired`); a network failure or another answer
 * is `unchecked`: the link is not used, since nothing shows it works. This client has no
 * onUnauthorized, so the refusal never ends the live session.
 */
export async function verifySession(
  baseUrl: string,
  session: { applicationId: string; token: string },
  fetchImpl?: Fetch,
): Promise<'accepted' | 'invalid' | 'expired' | 'unchecked'> {
  const client = new ApiClient({ baseUrl, ...session, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  try {
    await client.listConnections(undefined, 1);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ApiCallError) || error.status !== 401) return 'unchecked';
    return error.code === 'session_expired' ? 'expired' : 'invalid';
  }
}

/** The index's command for one application (`app_…` when the application is not known). */
export function consoleCommandFor(template: string, applicationId?: string): string {
  return template.replaceAll('{applicationId}', applicationId ?? 'app_…');
}

function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  const error = (body as ApiErrorBody | null)?.error;
  return typeof error === 'object' && error !== null && typeof error.message === 'string';
}

export class ApiClient {
  private readonly fetchImpl: Fetch;
  private readonly base: string;

  constructor(private readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.base = `${options.baseUrl.replace(/\/$/, '')}/applications/${encodeURIComponent(options.applicationId)}`;
  }

  get applicationId(): string {
    return this.options.applicationId;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
      });
    } catch (error) {
      throw new ApiCallError(0, 'network', `Could not reach the API: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return parsed as T;
    const error = isErrorBody(parsed)
      ? new ApiCallError(
          response.status,
          parsed.error.code ?? 'error',
          parsed.error.message,
          parsed.error.field,
        )
      : new ApiCallError(
          response.status,
          'http',
          `The API answered ${response.status} ${response.statusText}`.trim(),
        );
    if (response.status === 401) this.options.onUnauthorized?.(error);
    throw error;
  }

  listConnections(cursor?: string, limit = 50): Promise<Page<Connection>> {
    return this.call('GET', `/connections${query({ cursor, limit })}`);
  }

  getConnection(connectionId: string): Promise<Connection> {
    return this.call('GET', `/connections/${encodeURIComponent(connectionId)}`);
  }

  createConnection(input: ConnectionInput): Promise<Connection> {
    return this.call('POST', '/connections', { type: 'webhook', ...input });
  }

  updateConnection(connectionId: string, changes: Partial<ConnectionInput>): Promise<Connection> {
    return this.call('PATCH', `/connections/${encodeURIComponent(connectionId)}`, changes);
  }

  deleteConnection(connectionId: string): Promise<void> {
    return this.call('DELETE', `/connections/${encodeURIComponent(connectionId)}`);
  }

  showSecret(connectionId: string): Promise<Secret> {
    return this.call('GET', `/connections/${encodeURIComponent(connectionId)}/secret`);
  }

  /** A new secret; `choice` names the switch time, absent: the deployment's overlap. */
  rotateSecret(connectionId: string, choice?: RotateSecretChoice): Promise<RotatedSecret> {
    return this.call('POST', `/connections/${encodeURIComponent(connectionId)}/secret/rotate`, choice);
  }

  /** The rate limit that applies and its last minute: are deliveries waiting for it now? */
  rateLimitActivity(connectionId: string): Promise<RateLimitActivity> {
    return this.call('GET', `/connections/${encodeURIComponent(connectionId)}/rate-limit`);
  }

  sendTest(connectionId: string): Promise<Attempt> {
    return this.call('POST', `/connections/${encodeURIComponent(connectionId)}/test`);
  }

  listAttempts(
    connectionId: string,
    filters: AttemptFilters,
    cursor?: string,
    limit = 20,
  ): Promise<Page<Attempt>> {
    return this.call(
      'GET',
      `/connections/${encodeURIComponent(connectionId)}/attempts${query({ ...filters, cursor, limit })}`,
    );
  }

  stats(connectionId: string, window: StatsWindow = {}): Promise<Stats> {
    return this.call('GET', `/connections/${encodeURIComponent(connectionId)}/stats${query({ ...window })}`);
  }

  /** The application's deliveries across its connections, newest first; by user, event or connection. */
  listDeliveries(filters: DeliveryFilters, cursor?: string, limit = 20): Promise<Page<DeliverySummary>> {
    return this.call('GET', `/deliveries${query({ ...filters, cursor, limit })}`);
  }

  getDelivery(deliveryId: string): Promise<Delivery> {
    return this.call('GET', `/deliveries/${encodeURIComponent(deliveryId)}`);
  }

  listParked(connectionId: string, cursor?: string, limit = 10): Promise<Page<ParkedDelivery>> {
    return this.call(
      'GET',
      `/connections/${encodeURIComponent(connectionId)}/parked${query({ cursor, limit })}`,
    );
  }

  /** Sends the connection's parked deliveries again (all, or those of events since `since`). */
  recover(connectionId: string, since?: string): Promise<RecoverResult> {
    return this.call(
      'POST',
      `/connections/${encodeURIComponent(connectionId)}/recover`,
      since ? { since } : {},
    );
  }

  retryDelivery(deliveryId: string): Promise<RetryResult> {
    return this.call('POST', `/deliveries/${encodeURIComponent(deliveryId)}/retry`);
  }

  /** Sends a delivery again as its next attempt (same delivery id, freshly signed). */
  resendDelivery(deliveryId: string): Promise<ResendResult> {
    return this.call('POST', `/deliveries/${encodeURIComponent(deliveryId)}/resend`);
  }
}
