/** Public entry for receiver developers: verify what the service sends (docs/protocol.md §4). */

export type { Application, Metadata, User, UserIdentifiedPayload } from '../core/types';
export {
  type HeaderBag,
  type VerificationFailure,
  type VerifiedWebhook,
  type VerifyOptions,
  verifyWebhook,
  WebhookVerificationError,
} from '../core/verify';
