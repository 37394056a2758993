import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Principal } from './tool-handler.js';
import { keyedDigest, MIN_KEY_BYTES, parseSecretKey } from './keyed-digest.js';
import { digestJson, type Sha256Hex } from './sha256.js';

/**
 * The host's secret for principal references: raw bytes, or text taken as its UTF-8 bytes. It lives on the worker
 * only; it never enters Temporal history, the audit record or a model result.
 */
export type PrincipalKey = string | Uint8Array;

/**
 * Shortest key accepted by {@link parsePrincipalKey}, in bytes (256 bits, SHA-256's own strength): a key shorter than
 * the digest it protects would be the easier thing to guess.
 */
export const MIN_PRINCIPAL_KEY_BYTES = MIN_KEY_BYTES;

/**
 * Checks a configured key and returns its bytes. Throws a `RangeError` (naming the minimum, never the key) when it is
 * shorter than {@link MIN_PRINCIPAL_KEY_BYTES}; configuration code calls this once, at startup.
 */
export function parsePrincipalKey(key: PrincipalKey): Uint8Array {
  return parseSecretKey(key, 'a principal key');
}

/**
 * The audit's reference to a principal: never the raw tenant or subject. With a key it is HMAC-SHA256(key, …), which
 * nobody without the key can recompute; without one it is a plain SHA-256, which anyone who can enumerate likely
 * subjects (short ids, emails of a known domain) can invert by brute force — documented as the weaker mode. `hash`
 * takes that plain digest faster (the same digest).
 */
export function principalRef(principal: Principal, key?: PrincipalKey, hash?: Sha256Hex): string {
  const message = { domain: 'ttc.principal.v1', tenant: principal.tenant, subject: principal.subject };
  if (key === undefined) return digestJson(message, hash);
  return bytesToHex(keyedDigest(typeof key === 'string' ? utf8ToBytes(key) : key, message));
}
