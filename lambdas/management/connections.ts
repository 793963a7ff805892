/**
 * Webhook connections and their secrets (docs/protocol.md §1 "CRM Connections": add, Show Secret,
 * rotate, enable/disable, delete). Every rule is checked here, at save time, with the same
 * code the dispatcher re-checks at delivery time.
 */

import { CONFIG_DEFAULTS } from '../config';
import { raisedAttemptShards } from '../core/attempt-shards';
import { validateMethod, validateNameCharacters, validateUrl } from '../core/connection';
import { DEFAULT_HEADER_PREFIX } from '../core/constants';
import type { EgressPolicy } from '../core/egress';
import { ValidationError } from '../core/errors';
import { validateCustomHeaders } from '../core/headers';
import { type ConnectionHealth, type HealthTransition, INITIAL_HEALTH, nextHealth } from '../core/health';
import { isApplicationId, isConnectionId, newId } from '../core/ids';
import { operationalEvent } from '../core/parking';
import type { OperationalEvents } from '../core/ports';
import { probeStep, withProbeFields } from '../core/probes';
import { validateRateLimit } from '../core/rate-limit';
import { switchedAt } from '../core/secret-switch';
import type { ConnectionChanges, ConnectionTable, Page } from '../core/stores';
import type { Connection } from '../core/types';
import { ConflictError, NotFoundError } from './errors';
import type { ManagementBackend, SecretKeeper } from './ports';
import {
  generateSecret,
  type RotatedSecret,
  revealSecrets,
  rotateSecret,
  type ShownSecret,
  type SwitchChoice,
  switchTimeOf,
} from './secret-rotation';
import type { CreateConnectionInput, ManagementOptions, UpdateConnectionInput } from './types';

const MAX_NAME_LENGTH = 200;

export { generateSecret } from './secret-rotation';

export function newConnectionId(): string {
  return newId('con', Date.now());
}

/** Health as the management API shows it: always present, without the write version. */
export type HealthView = Omit<ConnectionHealth, 'version'>;

/** A connection read from the table with its health filled in (healthy when never written). */
export function withHealth(connection: Connection): Connection & { health: ConnectionHealth } {
  return { ...connection, health: connection.health ?? { ...INITIAL_HEALTH } };
}

/** The health fields of the management contract (no write version). */
export function healthView(health: ConnectionHealth | undefined): HealthView {
  const { version: _v, ...view } = health ?? INITIAL_HEALTH;
  return view;
}

export class Connections {
  private readonly table: ConnectionTable;
  private readonly secrets: SecretKeeper;
  private readonly egress: EgressPolicy;
  private readonly headerPrefix: string;

  /** Where `connection.recovered` goes when enabling recovers a disabled connection. */
  private readonly events?: OperationalEvents;

  constructor(
    private readonly options: ManagementOptions,
    backend: Pick<ManagementBackend, 'connections' | 'secrets' | 'events'>,
  ) {
    this.table = backend.connections;
    this.secrets = backend.secrets;
    this.events = backend.events;
    this.egress = {
      allowedPorts: options.allowedPorts ?? options.resources.allowedPorts ?? CONFIG_DEFAULTS.allowedPorts,
      allowLoopback: options.allowLoopback ?? false,
    };
    this.headerPrefix = options.resources.headerPrefix ?? DEFAULT_HEADER_PREFIX;
  }

  private validate(input: { name?: unknown; url?: unknown; method?: unknown; headers?: unknown }) {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name) throw new ValidationError('name', 'is required: a friendly name for the webhook');
    if (name.length > MAX_NAME_LENGTH)
      throw new ValidationError('name', `must be at most ${MAX_NAME_LENGTH} characters`);
    validateNameCharacters(name);
    return {
      name,
      url: validateUrl(input.url, this.egress).href,
      method: validateMethod(input.method),
      headers: validateCustomHeaders(input.headers ?? {}, this.headerPrefix),
    };
  }

  /** Creates a connection and its secret. The secret is read with {@link showSecret}. */
  async create(input: CreateConnectionInput): Promise<Connection> {
    if (!isApplicationId(input.applicationId)) {
      throw new ValidationError('applicationId', 'is required and must look like app_<id>');
    }
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
      throw new ValidationError('enabled', 'must be true or false');
    }
    const fields = this.validate(input);
    const rateLimit = validateRateLimit(input.rateLimit, this.options.resources.rateLimitCeiling);
    const recoveryProbes = recoveryProbesOf(input.recoveryProbes);
    const connectionId = newConnectionId();
    const secret = await this.secrets.create(
      { connectionId, applicationId: input.applicationId, name: fields.name },
      generateSecret(),
    );
    const now = new Date().toISOString();
    const connection: Connection = {
      connectionId,
      applicationId: input.applicationId,
      type: 'webhook',
      ...fields,
      enabled: input.enabled ?? true,
      ...(rateLimit !== undefined ? { rateLimit } : {}),
      ...(recoveryProbes !== undefined && recoveryProbes !== null ? { recoveryProbes } : {}),
      ...secret,
      createdAt: now,
      updatedAt: now,
    };
    let saved: 'created' | 'exists';
    try {
      saved = await this.table.create(connection);
    } catch (error) {
      // Do not leave an orphaned secret behind a connection that was never saved.
      await this.secrets.discard(secret);
      throw error;
    }
    if (saved === 'exists') {
      await this.secrets.discard(secret);
      throw new ConflictError(`connection ${connectionId} already exists`);
    }
    return connection;
  }

  async get(connectionId: string): Promise<Connection> {
    return withHealth(this.settled(await this.stored(connectionId)));
  }

  /** The connection item as stored (a switch past its time not yet applied). */
  private async stored(connectionId: string): Promise<Connection> {
    if (!isConnectionId(connectionId)) throw new ValidationError('connectionId', 'must look like con_<id>');
    const connection = await this.table.get(connectionId, { consistent: true });
    if (!connection) throw new NotFoundError('connection', connectionId);
    return connection;
  }

  /** As it stands now: a rotated secret whose switch time has passed is the current one. */
  private settled(connection: Connection): Connection {
    return switchedAt(connection, this.now());
  }

  private now(): number {
    return this.options.clock?.now() ?? Date.now();
  }

  /** Connections of one application (a Query), or of all applications (a Scan, for operators). */
  async list(filter: { applicationId?: string } = {}): Promise<Connection[]> {
    const items = filter.applicationId
      ? await this.table.listByApplication(filter.applicationId)
      : await this.table.listAll();
    return items.map((c) => this.settled(c)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * One page of an application's connections, oldest first (connection ids are time-ordered);
   * `cursor` is the `nextCursor` of the previous page (InvalidCursorError for any other).
   */
  async page(query: { applicationId: string; limit: number; cursor?: string }): Promise<Page<Connection>> {
    const page = await this.table.page(query.applicationId, { limit: query.limit, cursor: query.cursor });
    return { ...page, items: page.items.map((c) => this.settled(c)) };
  }

  /**
   * Changes name, URL, method, headers, enabled or rate limit; every rule is checked again. Only the fields
   * given are written (an UpdateItem), so health that dispatchers write meanwhile is kept.
   * Enabling a connection resets its health to healthy; when health had disabled it, the
   * `connection.recovered` event is published (docs/design.md §9).
   */
  async update(connectionId: string, patch: UpdateConnectionInput): Promise<Connection> {
    const current = await this.get(connectionId);
    const fields = this.validate({
      name: patch.name ?? current.name,
      url: patch.url ?? current.url,
      method: patch.method ?? current.method,
      headers: patch.headers ?? current.headers,
    });
    if (patch.enabled !== undefined && typeof patch.enabled !== 'boolean') {
      throw new ValidationError('enabled', 'must be true or false');
    }
    const now = new Date().toISOString();
    const set: ConnectionChanges = { ...fields, updatedAt: now };
    if (patch.enabled !== undefined) set.enabled = patch.enabled;
    if (patch.rateLimit !== undefined)
      set.rateLimit = validateRateLimit(patch.rateLimit, this.options.resources.rateLimitCeiling) ?? null;
    if (patch.recoveryProbes !== undefined) set.recoveryProbes = recoveryProbesOf(patch.recoveryProbes);
    // Enabling (from disabled, or a connection health disabled) starts its health afresh.
    const enabling =
      patch.enabled === true && (current.enabled !== true || current.health?.state === 'disabled');
    const step = enabling
      ? nextHealth(current.health, { kind: 'enabled', at: now }, { failingAfter: 1 })
      : undefined;
    // Disabling ends any recovery checks (never probed while its owner keeps it off), and with
    // them the chance of a check enabling it again (core/probes.ts).
    const stopping = patch.enabled === false && current.health?.nextCheckAt !== undefined;
    const stopped = stopping ? probeStep(current.health, { kind: 'stop' }, [], Date.parse(now)) : undefined;
    if (step?.write) set.health = { ...step.health, version: (current.health?.version ?? 0) + 1 };
    else if (stopped && current.health) {
      set.health = {
        ...withProbeFields(current.health, stopped.fields),
        version: current.health.version + 1,
      };
    }
    // Refuse to overwrite a concurrent change (or resurrect a deleted connection).
    if ((await this.table.update(connectionId, set, current.updatedAt)) === 'conflict') {
      throw new ConflictError(`connection ${connectionId} changed meanwhile; try again`);
    }
    const next = { ...current, ...set } as Connection;
    if (set.rateLimit === null) delete next.rateLimit;
    if (set.recoveryProbes === null) delete next.recoveryProbes;
    if (step?.transitions.includes('connection.recovered'))
      await this.announce(next, 'connection.recovered', now);
    return withHealth(next);
  }

  /**
   * Raises the connection's attempt-log shards to `to` (docs/operations.md "A connection past
   * ~900 deliveries/s"): deliveries created from a minute on (RAISE_DELAY_MS) are spread over
   * `to` partitions; earlier ones, their retries included, stay where they are, and every read
   * covers both. Only ever raised: ValidationError for a count at or below the current one.
   */
  async raiseAttemptShards(connectionId: string, to: number): Promise<Connection> {
    const current = await this.get(connectionId);
    const now = new Date();
    const set: ConnectionChanges = {
      attemptShards: raisedAttemptShards(current, to, now),
      updatedAt: now.toISOString(),
    };
    if ((await this.table.update(connectionId, set, current.updatedAt)) === 'conflict') {
      throw new ConflictError(`connection ${connectionId} changed meanwhile; try again`);
    }
    return withHealth({ ...current, ...set } as Connection);
  }

  /** Publishes an operational event; a failure is reported, never undoes the change. */
  private async announce(connection: Connection, type: HealthTransition, at: string): Promise<void> {
    if (!this.events) return;
    try {
      await this.events.publish(operationalEvent(type, connection, connection.health ?? INITIAL_HEALTH, at));
    } catch (error) {
      this.options.onEventError?.(error);
    }
  }

  setEnabled(connectionId: string, enabled: boolean): Promise<Connection> {
    return this.update(connectionId, { enabled });
  }

  /** Deletes the connection, then its secret (deliveries still queued dead-letter as `connection_missing`). */
  async delete(connectionId: string): Promise<Connection> {
    if (!isConnectionId(connectionId)) throw new ValidationError('connectionId', 'must look like con_<id>');
    const old = await this.table.delete(connectionId);
    if (!old) throw new NotFoundError('connection', connectionId);
    await this.secrets.remove(old);
    return old;
  }

  /**
   * "Show Secret": the secret deliveries of this connection are signed with now and, while a
   * rotation's switch is ahead, the next one with its switch time.
   */
  async showSecret(connectionId: string): Promise<ShownSecret> {
    return revealSecrets(this.secrets, await this.stored(connectionId), this.now());
  }

  /**
   * A new secret, shown at once, that starts signing at the switch time: `switchAfter` seconds
   * from now (0: at once), `switchAt`, or the stack's overlap (`secretRotationOverlap`, 24 hours
   * by default). Until then the current secret keeps signing; a rotation before the switch
   * replaces the pending secret (docs/api.md "Rotating with overlap").
   */
  async rotateSecret(connectionId: string, choice: SwitchChoice = {}): Promise<RotatedSecret> {
    const now = this.now();
    const switchMs = switchTimeOf(choice, now, this.options.resources.secretRotationOverlapSeconds);
    const stored = await this.stored(connectionId);
    return rotateSecret({ table: this.table, keeper: this.secrets }, stored, switchMs, now);
  }
}

/** A connection's own recovery-probe switch: true, false, or null (cleared: the stack's setting applies). */
function recoveryProbesOf(value: unknown): boolean | null | undefined {
  if (value === undefined || value === null || typeof value === 'boolean') return value;
  throw new ValidationError('recoveryProbes', 'must be true or false');
}
