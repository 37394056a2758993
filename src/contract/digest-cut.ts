import { sha256Hex } from './sha256.js';
import { wellFormedPrefix } from './truncation.js';

/** Length of the digest suffix {@link cutWithDigest} appends (`…` and 16 hex digits). */
const SUFFIX_CHARS = 17;

/**
 * `text` itself when it has at most `maxChars` UTF-16 units; else a well-formed prefix, `…` and the first 16 hex
 * digits of the whole text's SHA-256, `maxChars` units in all. For values a record must keep bounded but still
 * tell apart (redaction paths, host ids): two long values that share a prefix keep different suffixes.
 */
export function cutWithDigest(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${wellFormedPrefix(text, maxChars - SUFFIX_CHARS)}…${sha256Hex(text.toWellFormed()).slice(0, 16)}`;
}
