/** Numbers and names fixed by the product contract (spec) and the design. */

/** docs/protocol.md §2: the only event kind. */
export const EVENT_KIND = 'user.identified';

/** docs/protocol.md §6, §8: one attempt, whole exchange, must finish within 30 s. */
export const ATTEMPT_TIMEOUT_MS = 30_000;

/** Time an attempt needs beyond its own timeout to reschedule and log before Lambda stops. */
export const DEADLINE_MARGIN_MS = 5_000;

/** docs/protocol.md §6: 3 retries after 1 s, 2 s and 4 s (4 attempts in a chain). */
export const RETRY_DELAYS_S: readonly number[] = Object.freeze([1, 2, 4]);

/** Attempts in one chain: the first plus one per retry delay. */
export const ATTEMPTS_PER_CHAIN = RETRY_DELAYS_S.length + 1;

/**
 * Highest attempt number a delivery may reach: 250 chains of 4 (each redrive or recovery
 * starts a new chain and continues the numbering). A message naming a higher attempt, or a
 * chain start beyond it, is poison (docs/security.md): numbers in messages are bounded.
 */
export const MAX_ATTEMPT = 1000;

/** docs/protocol.md §4, §8: receivers reject timestamps older than 5 minutes. */
export const REPLAY_WINDOW_MS = 300_000;

/** docs/protocol.md §1: connection methods. */
export const ALLOWED_METHODS = ['POST', 'PUT', 'PATCH'] as const;

/** The lowest rate limit a connection may have (deliveries per second, core/rate-limit.ts). */
export const MIN_RATE_LIMIT = 1;
/** The highest limit any deployment can allow; its own ceiling is at most this. */
export const MAX_RATE_LIMIT = 10_000;

/** What a custom header's value reads wherever it is shown: its value is never stored or shown. */
export const HIDDEN_HEADER_VALUE = '[hidden]';

/** docs/design.md §3: a serialised body is at most 256 KiB. */
export const MAX_BODY_BYTES = 256 * 1024;

/** docs/design.md §4: at most 1 KiB of a response is kept for the attempt log. */
export const RESPONSE_SNIPPET_BYTES = 1024;

/**
 * Longest form a sensitive value can take in an echo that redaction recognises: 8 characters
 * per character (`&#x10FFFF;` aside, `&#65535;` is the longest) of a 4 KiB header value.
 */
export const REDACTION_MARGIN_BYTES = 8 * 4096;

/**
 * What the sender reads of a response: the kept 1 KiB plus room for a sensitive value that
 * starts before the cut to be seen whole, redacted, and only then cut (core/redact.ts).
 */
export const SNIPPET_READ_BYTES = RESPONSE_SNIPPET_BYTES + REDACTION_MARGIN_BYTES;

/** docs/design.md §3: the message envelope version this code reads and writes. */
export const ENVELOPE_VERSION = 1;

/** Default prefix of the service headers (docs/protocol.md §3), a stack setting. */
export const DEFAULT_HEADER_PREFIX = 'X-Service';

/** Sent as User-Agent on every delivery (docs/design.md §4 extension). */
export const USER_AGENT = 'serverless-webhooks/0.1 (+https://github.com/serverless-webhooks)';

/**
 * How long a rotated-out secret keeps signing by default (docs/protocol.md "Rotating the
 * secret"): receivers have a day to take the new one. A stack setting (`secretRotationOverlap`).
 */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;
/** The latest switch a rotation may ask for: 30 days after it. */
export const MAX_SECRET_OVERLAP_SECONDS = 30 * 86_400;
