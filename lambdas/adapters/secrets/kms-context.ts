/**
 * The encryption context of a sealed connection secret (docs/design.md §5 "The KMS secret store"):
 * the adapter seals and opens with it, and the construct's IAM conditions name its keys. No SDK
 * import, so lib/ can read it.
 */

/** Encryption-context keys: the IAM policies of the kms store require both (lib/secret-store.ts). */
export const KMS_CONTEXT_KEYS = {
  connectionId: 'webhooks:connectionId',
  applicationId: 'webhooks:applicationId',
} as const;

/** The encryption context that binds a ciphertext to its connection and application. */
export function encryptionContext(ids: {
  connectionId: string;
  applicationId: string;
}): Record<string, string> {
  return {
    [KMS_CONTEXT_KEYS.connectionId]: ids.connectionId,
    [KMS_CONTEXT_KEYS.applicationId]: ids.applicationId,
  };
}
