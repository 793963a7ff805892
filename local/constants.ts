/** Where each emulator listens: what points an SDK client at it. */
export interface LocalEndpoints {
  /** For `AWS_ENDPOINT_URL_SQS`. */
  readonly sqs: string;
  /** For `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly dynamodb: string;
  /** For `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  readonly secretsManager: string;
  /** For `AWS_ENDPOINT_URL_KMS`. */
  readonly kms: string;
}

/** Identity of local mode's emulated AWS account. */

/**
 * How long local mode's dispatcher caches a connection unless WEBHOOKS_CONNECTION_CACHE_TTL_MS
 * says otherwise: short, so a change made with the CLI shows at once on a laptop.
 */
export const LOCAL_CONNECTION_CACHE_TTL_MS = 1_000;

/** Region of local mode unless told otherwise. */
export const LOCAL_REGION = 'us-east-1';

/** Account id in local ARNs (fauxqs uses the same one). */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** Dummy credentials: the emulators accept any and check none. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * The environment that points unchanged AWS SDK v3 clients at the emulators: region, dummy
 * credentials and one `AWS_ENDPOINT_URL_<SERVICE>` per emulator.
 */
export function localSdkEnv(
  endpoints: LocalEndpoints,
  region: string = LOCAL_REGION,
): Record<string, string> {
  return {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    // fauxqs serves SNS on the same endpoint as SQS.
    AWS_ENDPOINT_URL_SNS: endpoints.sqs,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsManager,
    // Absent in the state file of a local mode started before the local KMS existed.
    ...(endpoints.kms ? { AWS_ENDPOINT_URL_KMS: endpoints.kms } : {}),
  };
}
