/**
 * The state and rules behind the local Secrets Manager endpoint: secrets, their versions and
 * staging labels, as AWS applies them, for exactly the calls the product makes (CreateSecret,
 * GetSecretValue, PutSecretValue, and DeleteSecret with ForceDeleteWithoutRecovery). Anything
 * else is refused by name, so a new call in the product fails loudly in local mode instead of
 * meeting an emulation nobody tests. Transport-free: secrets-manager.ts maps actions and errors.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { InputError } from '../lambdas/core/errors';
import { LOCAL_ACCOUNT_ID } from './constants';

export const AWSCURRENT = 'AWSCURRENT';
export const AWSPREVIOUS = 'AWSPREVIOUS';

/** AWS limits that the project can run into. */
const MAX_SECRET_BYTES = 65_536;
const MAX_VERSIONS = 100;
const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const ARN_SUFFIX_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * An error AWS would return; `type` is the `__type` the SDK maps to its named exception
 * (`ResourceNotFoundException`, `ResourceExistsException`, `InvalidRequestException`, ...).
 */
export class SecretsManagerError extends InputError {
  override readonly name = 'SecretsManagerError';
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(type, message);
  }
}

const notFound = () =>
  new SecretsManagerError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
const invalidParameter = (message: string) => new SecretsManagerError('InvalidParameterException', message);

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
    switch (action) {
      case 'CreateSecret':
        return this.createSecret(input);
      case 'GetSecretValue':
        return this.getSecretValue(input);
      case 'PutSecretValue':
        return this.putSecretValue(input);
      case 'DeleteSecret':
        return this.deleteSecret(input);
      default:
        throw new SecretsManagerError(
          'UnknownOperationException',
          `The local Secrets Manager does not implement ${action}: it serves the calls the product makes, CreateSecret, GetSecretValue, PutSecretValue and DeleteSecret.`,
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
      versions: value ? [{ versionId: token, ...value, createdDate: now, stages: [AWSCURRENT] }] : [],
    };
    this.secrets.set(name, secret);
    this.changed();
    return { ARN: secret.arn, Name: secret.name, ...(value ? { VersionId: token } : {}) };
  }

  private getSecretValue(input: Input): Output {
    const secret = this.find(str(input, 'SecretId', true));
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
    const secret = this.find(str(input, 'SecretId', true));
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
    this.changed();
    return { ARN: secret.arn, Name: secret.name, VersionId: token, VersionStages: [...version.stages] };
  }

  /** Deletes at once: the product always passes ForceDeleteWithoutRecovery (a recovery window is refused). */
  private deleteSecret(input: Input): Output {
    const secret = this.find(str(input, 'SecretId', true));
    if (input.ForceDeleteWithoutRecovery !== true) {
      throw invalidParameter(
        'The local Secrets Manager deletes only with ForceDeleteWithoutRecovery, as the product does.',
      );
    }
    this.secrets.delete(secret.name);
    this.changed();
    return { ARN: secret.arn, Name: secret.name, DeletionDate: epoch(Date.now()) };
  }

  /** A secret by name, full ARN or partial ARN (without the random suffix). */
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

/** The six random characters AWS appends to a secret's name in its ARN. */
function arnSuffix(): string {
  return [...randomBytes(6)].map((b) => ARN_SUFFIX_CHARS[b % ARN_SUFFIX_CHARS.length]).join('');
}
