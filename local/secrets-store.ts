/**
 * The state and rules behind the local Secrets Manager endpoint: secrets, their versions
 * and staging labels, and scheduled deletion, as AWS applies them. Transport-free, so the
 * HTTP layer in secrets-manager.ts only maps actions and errors.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID } from './constants';

export const AWSCURRENT = 'AWSCURRENT';
export const AWSPREVIOUS = 'AWSPREVIOUS';

/** AWS limits that the project can run into. */
const MAX_SECRET_BYTES = 65_536;
const MAX_VERSIONS = 100;
const RECOVERY_WINDOW_DAYS = { min: 7, max: 30, default: 30 } as const;
const LIST_PAGE = { min: 1, max: 100, default: 100 } as const;
const DAY_MS = 86_400_000;
const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const ARN_SUFFIX_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * An error AWS would return; `type` is the `__type` the SDK maps to its named exception
 * (`ResourceNotFoundException`, `ResourceExistsException`, `InvalidRequestException`, ...).
 */
export class SecretsManagerError extends Error {
  override readonly name = 'SecretsManagerError';
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const notFound = () =>
  new SecretsManagerError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
const invalidParameter = (message: string) => new SecretsManagerError('InvalidParameterException', message);
const markedForDeletion = () =>
  new SecretsManagerError(
    'InvalidRequestException',
    "You can't perform this operation on the secret because it was marked for deletion.",
  );

export interface Tag {
  Key?: string;
  Value?: string;
}

interface StoredVersion {
  versionId: string;
  secretString?: string;
  /** Base64, as the JSON protocol carries blobs. */
  secretBinary?: string;
  createdDate: number;
  stages: string[];
}

interface StoredSecret {
  arn: string;
  name: string;
  description?: string;
  tags: Tag[];
  createdDate: number;
  lastChangedDate: number;
  lastAccessedDate?: number;
  /** When DeleteSecret was called; set while the secret waits out its recovery window. */
  deletedDate?: number;
  /** When a scheduled deletion takes effect. */
  deletionDate?: number;
  versions: StoredVersion[];
}

/** What the store persists: plain JSON. */
export interface SecretsSnapshot {
  readonly version: 1;
  readonly secrets: StoredSecret[];
}

type Input = Record<string, unknown>;
type Output = Record<string, unknown>;

/** AWS JSON timestamps are epoch seconds. */
const epoch = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

function str(input: Input, key: string, required: true): string;
function str(input: Input, key: string, required?: false): string | undefined;
function str(input: Input, key: string, required = false): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) {
    if (required) throw invalidParameter(`${key} is required.`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidParameter(`${key} must be a string.`);
  return value;
}

function int(input: Input, key: string): number | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw invalidParameter(`${key} must be a whole number.`);
  return value;
}

/**
 * Secrets Manager's state for one account and region. `onChange` is called after every
 * mutation with a snapshot to persist.
 */
export class SecretStore {
  private secrets = new Map<string, StoredSecret>();

  constructor(
    private readonly region: string,
    private readonly onChange: (snapshot: SecretsSnapshot) => void = () => {},
    snapshot?: SecretsSnapshot,
  ) {
    for (const secret of snapshot?.secrets ?? []) this.secrets.set(secret.name, secret);
  }

  snapshot(): SecretsSnapshot {
    return { version: 1, secrets: [...this.secrets.values()] };
  }

  /** Runs one action; throws SecretsManagerError for the errors AWS would return. */
  handle(action: string, input: Input): Output {
    this.purgeExpired();
    switch (action) {
      case 'CreateSecret':
        return this.createSecret(input);
      case 'GetSecretValue':
        return this.getSecretValue(input);
      case 'PutSecretValue':
        return this.putSecretValue(input);
      case 'DescribeSecret':
        return this.describeSecret(input);
      case 'DeleteSecret':
        return this.deleteSecret(input);
      case 'ListSecrets':
        return this.listSecrets(input);
      default:
        throw new SecretsManagerError(
          'UnknownOperationException',
          `The local Secrets Manager does not implement ${action}. It serves CreateSecret, GetSecretValue, PutSecretValue, DescribeSecret, DeleteSecret and ListSecrets.`,
        );
    }
  }

  private createSecret(input: Input): Output {
    const name = str(input, 'Name', true);
    if (!NAME.test(name)) {
      throw invalidParameter('Invalid name. Must be 1-512 characters: letters, digits and /_+=.@-');
    }
    const value = secretValue(input);
    const token = str(input, 'ClientRequestToken') ?? randomUUID();
    const existing = this.secrets.get(name);
    if (existing) {
      if (existing.deletedDate !== undefined) {
        throw new SecretsManagerError(
          'InvalidRequestException',
          "You can't create this secret because a secret with this name is already scheduled for deletion.",
        );
      }
      // A retried CreateSecret (same token, same value) succeeds again, as on AWS.
      const version = existing.versions.find((v) => v.versionId === token);
      if (value && version && sameValue(version, value)) {
        return { ARN: existing.arn, Name: existing.name, VersionId: version.versionId };
      }
      throw new SecretsManagerError(
        'ResourceExistsException',
        `The operation failed because the secret ${name} already exists.`,
      );
    }
    const now = Date.now();
    const secret: StoredSecret = {
      arn: `arn:aws:secretsmanager:${this.region}:${LOCAL_ACCOUNT_ID}:secret:${name}-${arnSuffix()}`,
      name,
      description: str(input, 'Description'),
      tags: tags(input),
      createdDate: now,
      lastChangedDate: now,
      versions: value ? [{ versionId: token, ...value, createdDate: now, stages: [AWSCURRENT] }] : [],
    };
    this.secrets.set(name, secret);
    this.changed();
    return { ARN: secret.arn, Name: secret.name, ...(value ? { VersionId: token } : {}) };
  }

  private getSecretValue(input: Input): Output {
    const secret = this.live(str(input, 'SecretId', true));
    const versionId = str(input, 'VersionId');
    const stage = str(input, 'VersionStage');
    const version = secret.versions.find(
      (v) =>
        (versionId === undefined || v.versionId === versionId) &&
        (stage !== undefined
          ? v.stages.includes(stage)
          : versionId !== undefined || v.stages.includes(AWSCURRENT)),
    );
    if (!version) {
      const which =
        versionId !== undefined ? `VersionId: ${versionId}` : `staging label: ${stage ?? AWSCURRENT}`;
      throw new SecretsManagerError(
        'ResourceNotFoundException',
        `Secrets Manager can't find the specified secret value for ${which}`,
      );
    }
    secret.lastAccessedDate = Date.now();
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      ...(version.secretString !== undefined ? { SecretString: version.secretString } : {}),
      ...(version.secretBinary !== undefined ? { SecretBinary: version.secretBinary } : {}),
      VersionStages: [...version.stages],
      CreatedDate: epoch(version.createdDate),
    };
  }

  private putSecretValue(input: Input): Output {
    const secret = this.live(str(input, 'SecretId', true));
    const value = secretValue(input);
    if (!value) throw invalidParameter('You must provide either SecretString or SecretBinary.');
    const token = str(input, 'ClientRequestToken') ?? randomUUID();
    const stagesInput = input.VersionStages;
    if (
      stagesInput !== undefined &&
      (!Array.isArray(stagesInput) || !stagesInput.every((s) => typeof s === 'string'))
    ) {
      throw invalidParameter('VersionStages must be a list of strings.');
    }
    const stages = (stagesInput as string[] | undefined) ?? [AWSCURRENT];
    const existing = secret.versions.find((v) => v.versionId === token);
    if (existing) {
      if (!sameValue(existing, value)) {
        throw new SecretsManagerError(
          'ResourceExistsException',
          "You can't modify an existing version, you can only create a new version.",
        );
      }
      return { ARN: secret.arn, Name: secret.name, VersionId: token, VersionStages: [...existing.stages] };
    }
    const now = Date.now();
    const version: StoredVersion = { versionId: token, ...value, createdDate: now, stages: [] };
    secret.versions.push(version);
    for (const stage of stages) moveStage(secret, stage, version);
    pruneDeprecated(secret);
    secret.lastChangedDate = now;
    this.changed();
    return { ARN: secret.arn, Name: secret.name, VersionId: token, VersionStages: [...version.stages] };
  }

  private describeSecret(input: Input): Output {
    const secret = this.find(str(input, 'SecretId', true));
    return describe(secret, 'VersionIdsToStages');
  }

  private deleteSecret(input: Input): Output {
    const secret = this.find(str(input, 'SecretId', true));
    const force = input.ForceDeleteWithoutRecovery === true;
    const window = int(input, 'RecoveryWindowInDays');
    if (force && window !== undefined) {
      throw invalidParameter(
        "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
      );
    }
    const now = Date.now();
    if (force) {
      this.secrets.delete(secret.name);
      this.changed();
      return { ARN: secret.arn, Name: secret.name, DeletionDate: epoch(now) };
    }
    if (secret.deletedDate !== undefined) throw markedForDeletion();
    const days = window ?? RECOVERY_WINDOW_DAYS.default;
    if (days < RECOVERY_WINDOW_DAYS.min || days > RECOVERY_WINDOW_DAYS.max) {
      throw invalidParameter(
        `RecoveryWindowInDays must be between ${RECOVERY_WINDOW_DAYS.min} and ${RECOVERY_WINDOW_DAYS.max} days.`,
      );
    }
    secret.deletedDate = now;
    secret.deletionDate = now + days * DAY_MS;
    this.changed();
    return { ARN: secret.arn, Name: secret.name, DeletionDate: epoch(secret.deletionDate) };
  }

  private listSecrets(input: Input): Output {
    const max = int(input, 'MaxResults') ?? LIST_PAGE.default;
    if (max < LIST_PAGE.min || max > LIST_PAGE.max) {
      throw invalidParameter(`MaxResults must be between ${LIST_PAGE.min} and ${LIST_PAGE.max}.`);
    }
    const includeDeleted = input.IncludePlannedDeletion === true;
    const matches = filters(input);
    const descending = str(input, 'SortOrder') === 'desc';
    const all = [...this.secrets.values()]
      .filter((s) => (includeDeleted || s.deletedDate === undefined) && matches(s))
      .sort((a, b) => a.createdDate - b.createdDate || a.name.localeCompare(b.name));
    if (descending) all.reverse();
    const start = decodeToken(str(input, 'NextToken'));
    const page = all.slice(start, start + max);
    const next = start + max < all.length ? encodeToken(start + max) : undefined;
    return {
      SecretList: page.map((s) => describe(s, 'SecretVersionsToStages')),
      ...(next ? { NextToken: next } : {}),
    };
  }

  /** A secret by name, full ARN or partial ARN (without the random suffix); marked ones included. */
  private find(secretId: string): StoredSecret {
    const byName = this.secrets.get(secretId);
    if (byName) return byName;
    if (secretId.startsWith('arn:')) {
      for (const secret of this.secrets.values()) {
        if (secret.arn === secretId || secret.arn.slice(0, -7) === secretId) return secret;
      }
    }
    throw notFound();
  }

  /** A secret that is not waiting for deletion: what reads and writes of values require. */
  private live(secretId: string): StoredSecret {
    const secret = this.find(secretId);
    if (secret.deletedDate !== undefined) throw markedForDeletion();
    return secret;
  }

  private purgeExpired(): void {
    const now = Date.now();
    let purged = false;
    for (const secret of this.secrets.values()) {
      if (secret.deletionDate !== undefined && secret.deletionDate <= now) {
        this.secrets.delete(secret.name);
        purged = true;
      }
    }
    if (purged) this.changed();
  }

  private changed(): void {
    this.onChange(this.snapshot());
  }
}

function secretValue(input: Input): Pick<StoredVersion, 'secretString' | 'secretBinary'> | undefined {
  const secretString = str(input, 'SecretString');
  const secretBinary = str(input, 'SecretBinary');
  if (secretString !== undefined && secretBinary !== undefined) {
    throw invalidParameter(
      "You can't specify both a binary secret value and a string secret value in the same secret.",
    );
  }
  const size =
    secretString !== undefined
      ? Buffer.byteLength(secretString)
      : Buffer.from(secretBinary ?? '', 'base64').length;
  if (size > MAX_SECRET_BYTES)
    throw invalidParameter(`The secret value must be at most ${MAX_SECRET_BYTES} bytes.`);
  if (secretString !== undefined) return { secretString };
  if (secretBinary !== undefined) return { secretBinary };
  return undefined;
}

function sameValue(
  version: StoredVersion,
  value: Pick<StoredVersion, 'secretString' | 'secretBinary'>,
): boolean {
  return version.secretString === value.secretString && version.secretBinary === value.secretBinary;
}

function tags(input: Input): Tag[] {
  const value = input.Tags;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParameter('Tags must be a list of {Key, Value}.');
  return value.map((t: Tag) => ({ Key: t.Key, Value: t.Value }));
}

/**
 * Attaches `stage` to `version`, taking it from whichever version held it. Moving
 * AWSCURRENT labels the version that held it AWSPREVIOUS, as rotation does on AWS.
 */
function moveStage(secret: StoredSecret, stage: string, version: StoredVersion): void {
  const holder = secret.versions.find((v) => v !== version && v.stages.includes(stage));
  if (holder) holder.stages = holder.stages.filter((s) => s !== stage);
  if (!version.stages.includes(stage)) version.stages.push(stage);
  if (stage === AWSCURRENT && holder) moveStage(secret, AWSPREVIOUS, holder);
}

/** AWS keeps at most 100 versions; the oldest ones without a label go first. */
function pruneDeprecated(secret: StoredSecret): void {
  while (secret.versions.length > MAX_VERSIONS) {
    const index = secret.versions.findIndex((v) => v.stages.length === 0);
    if (index < 0) return;
    secret.versions.splice(index, 1);
  }
}

/** DescribeSecret calls the version map VersionIdsToStages, ListSecrets SecretVersionsToStages. */
function describe(
  secret: StoredSecret,
  versionsKey: 'VersionIdsToStages' | 'SecretVersionsToStages',
): Output {
  const versionIdsToStages = Object.fromEntries(
    secret.versions.filter((v) => v.stages.length > 0).map((v) => [v.versionId, [...v.stages]]),
  );
  return {
    ARN: secret.arn,
    Name: secret.name,
    ...(secret.description !== undefined ? { Description: secret.description } : {}),
    CreatedDate: epoch(secret.createdDate),
    LastChangedDate: epoch(secret.lastChangedDate),
    ...(secret.lastAccessedDate !== undefined ? { LastAccessedDate: epoch(secret.lastAccessedDate) } : {}),
    ...(secret.deletedDate !== undefined ? { DeletedDate: epoch(secret.deletedDate) } : {}),
    ...(secret.tags.length > 0 ? { Tags: secret.tags.map((t) => ({ ...t })) } : {}),
    [versionsKey]: versionIdsToStages,
  };
}

/** ListSecrets filters: prefix matches, `!` negates, values OR-ed, filters AND-ed. */
function filters(input: Input): (secret: StoredSecret) => boolean {
  const raw = input.Filters;
  if (raw === undefined || raw === null) return () => true;
  if (!Array.isArray(raw)) throw invalidParameter('Filters must be a list of {Key, Values}.');
  const tests = raw.map((filter: { Key?: unknown; Values?: unknown }) => {
    const fields = filterFields(filter.Key);
    const values = filter.Values;
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) {
      throw invalidParameter(`Filter ${String(filter.Key)} needs a list of Values.`);
    }
    return (secret: StoredSecret) =>
      (values as string[]).some((value) => {
        const negate = value.startsWith('!');
        const prefix = negate ? value.slice(1) : value;
        const hit = fields(secret).some((field) => field.startsWith(prefix));
        return negate ? !hit : hit;
      });
  });
  return (secret) => tests.every((test) => test(secret));
}

function filterFields(key: unknown): (secret: StoredSecret) => string[] {
  switch (key) {
    case 'name':
      return (s) => [s.name];
    case 'description':
      return (s) => (s.description === undefined ? [] : [s.description]);
    case 'tag-key':
      return (s) => s.tags.map((t) => t.Key ?? '');
    case 'tag-value':
      return (s) => s.tags.map((t) => t.Value ?? '');
    case 'all':
      return (s) => [s.name, s.description ?? '', ...s.tags.flatMap((t) => [t.Key ?? '', t.Value ?? ''])];
    default:
      throw invalidParameter(
        `The local Secrets Manager cannot filter on ${String(key)}: use name, description, tag-key, tag-value or all.`,
      );
  }
}

function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function decodeToken(token: string | undefined): number {
  if (token === undefined) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { offset?: unknown };
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // fall through to the error below
  }
  throw new SecretsManagerError('InvalidNextTokenException', 'The NextToken value is invalid.');
}

/** The six random characters AWS appends to a secret's name in its ARN. */
function arnSuffix(): string {
  return [...randomBytes(6)].map((b) => ARN_SUFFIX_CHARS[b % ARN_SUFFIX_CHARS.length]).join('');
}
