/** docs/protocol.md §4: `sha256=` + lowercase hex HMAC-SHA256(secret, "<timestamp>.<body>"). */

import { createHmac } from 'node:crypto';

export const SIGNATURE_SCHEME = 'sha256=';

/**
 * Signs one attempt. The key is the secret string's UTF-8 bytes (docs/design.md §4), the
 * message the timestamp header value, a full stop and the body text exactly as sent.
 */
export function sign(secret: string, timestamp: string, body: string): string {
  return SIGNATURE_SCHEME + createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}
