/** Public entry for receiver developers: verify what the service sends (spec §5). */
export {
  type HeaderBag,
  type VerificationFailure,
  type VerifiedWebhook,
  type VerifyOptions,
  verifyWebhook,
  WebhookVerificationError,
} from '../core/verify';
export type { UserIdentifiedPayload, User, Application, Metadata } from '../core/types';
