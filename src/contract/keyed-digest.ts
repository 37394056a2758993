import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalJson } from './canonical-json.js';

/**
 * Shortest key accepted for a keyed digest, in bytes (256 bits, SHA-256's own strength): a key shorter than the MAC
 * it protects would be the easier thing to guess.
 */
export const MIN_KEY_BYTES = 32;

/**
 * A host secret as bytes: raw bytes, or text taken as its UTF-8 bytes. Throws a `RangeError` (naming the minimum,
 * never the key) when it is shorter than {@link MIN_KEY_BYTES}; configuration code calls this once, at startup.
 */
export function parseSecretKey(key: string | Uint8Array, what: string): Uint8Array {
  const bytes = typeof key === 'string' ? utf8ToBytes(key) : key;
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < MIN_KEY_BYTES) {
    throw new RangeError(
      `${what} needs at least ${MIN_KEY_BYTES} bytes (got ${bytes instanceof Uint8Array ? bytes.byteLength : typeof key})`,
    );
  }
  return bytes;
}

/**
 * HMAC-SHA256 over the canonical JSON of `message` — the one keyed digest of the package (principal references,
 * sealed cursors). Pure JavaScript, like `sha256Hex`: it runs wherever the contract runs. Callers put a `domain` tag
 * in `message`, so one key never makes two kinds of MAC that could stand in for each other.
 */
export function keyedDigest(key: Uint8Array, message: unknown): Uint8Array {
  return hmac(sha256, key, utf8ToBytes(canonicalJson(message)));
}

/** Compares two MACs in time that depends only on their lengths, so a forger learns nothing from how long it took. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let i = 0; i < a.byteLength; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
