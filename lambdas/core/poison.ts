/**
 * What a poison message leaves in its dead letter: its text, bounded so the dead letter always
 * fits one SQS message, and a one-line description of an error and its causes.
 */

import { truncateUtf8 } from './redact';
import type { DeadLetter } from './types';
import { queueJson } from './untrusted';

/**
 * Most bytes a poison message's text takes in its dead letter, JSON quoting included: the
 * dead letter must fit in one SQS message (1 MiB), or it could never be written.
 */
export const MAX_DEAD_LETTER_SOURCE_BYTES = 256 * 1024;

/**
 * A poison message's text for its dead letter: whole, or its first bytes and the full size.
 * What counts is the size once written into the dead letter's JSON, where escaping can grow
 * a character sixfold (`\u0001`): the quoted text stays within
 * {@link MAX_DEAD_LETTER_SOURCE_BYTES}, so the dead letter always fits one SQS message.
 */
export function deadLetterSource(text: string): Pick<DeadLetter, 'source' | 'sourceBytes'> {
  const quotedBytes = (t: string) => Buffer.byteLength(queueJson(t), 'utf8');
  if (text.length <= MAX_DEAD_LETTER_SOURCE_BYTES / 6 || quotedBytes(text) <= MAX_DEAD_LETTER_SOURCE_BYTES) {
    return { source: text };
  }
  let cut = truncateUtf8(text, MAX_DEAD_LETTER_SOURCE_BYTES);
  for (let size = quotedBytes(cut); size > MAX_DEAD_LETTER_SOURCE_BYTES; size = quotedBytes(cut)) {
    // Shrink in proportion to the excess (and by at least one character): a few rounds at most.
    const keep = Math.min(cut.length - 1, Math.floor((cut.length * MAX_DEAD_LETTER_SOURCE_BYTES) / size));
    cut = cut.slice(0, keep);
    // Never end on the first half of a surrogate pair.
    if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  }
  return { source: cut, sourceBytes: Buffer.byteLength(text, 'utf8') };
}

/** A one-line description of an error and its causes, for logs. */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(' <- ');
}
