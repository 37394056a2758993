import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { fromBase64Url } from './base64url.js';

/**
 * Integrity fields of RFC 9530 (`Content-Digest`, `Repr-Digest`): a dictionary of algorithm to byte sequence,
 * e.g. `sha-256=:X48E9q…=:`. Both are taken over the bytes as sent — after any content coding — so they can be
 * checked only against a body that was not decoded on its way in (seed 004: "检查响应大小和校验和").
 */

/** The algorithms checked; any other one in a field is ignored (RFC 9530 §5: recipients choose what they support). */
const ALGORITHMS: Readonly<Record<string, (bytes: Uint8Array) => Uint8Array>> = Object.freeze({
  'sha-256': sha256,
  'sha-512': sha512,
});

/** What one digest field said about a body. */
export type DigestVerdict =
  /** Every supported algorithm in the field matched (`algorithms` names them). */
  | { readonly kind: 'matched'; readonly algorithms: readonly string[] }
  /** The field names no algorithm this package computes: nothing was checked. */
  | { readonly kind: 'unsupported' }
  /** A supported algorithm's value differs from the body's digest, or the field is not a well-formed dictionary. */
  | { readonly kind: 'mismatch' | 'malformed'; readonly algorithm: string | null };

/** Longest field read; a longer one is malformed (sha-512 in base64 is 88 characters). */
const MAX_FIELD_CHARS = 2048;

/** Checks `body` against the value of one digest field. Linear in the field's length; never throws. */
export function checkDigestField(field: string, body: Uint8Array): DigestVerdict {
  if (field.length > MAX_FIELD_CHARS) return { kind: 'malformed', algorithm: null };
  const matched: string[] = [];
  for (const member of field.split(',')) {
    const separator = member.indexOf('=');
    if (separator <= 0) return { kind: 'malformed', algorithm: null };
    const algorithm = member.slice(0, separator).trim().toLowerCase();
    const hash = Object.hasOwn(ALGORITHMS, algorithm) ? ALGORITHMS[algorithm] : undefined;
    if (hash === undefined) continue;
    const expected = byteSequence(member.slice(separator + 1).trim());
    if (expected === null) return { kind: 'malformed', algorithm };
    if (!sameBytes(hash(body), expected)) return { kind: 'mismatch', algorithm };
    matched.push(algorithm);
  }
  return matched.length === 0 ? { kind: 'unsupported' } : { kind: 'matched', algorithms: matched };
}

/** A structured-field byte sequence (`:<base64>:`), decoded; `null` when it is not one. */
function byteSequence(item: string): Uint8Array | null {
  // Parameters (`;…`) after the item are allowed by the dictionary syntax and carry nothing here.
  const value = item.split(';', 1)[0]!.trim();
  if (!/^:[A-Za-z0-9+/]*={0,2}:$/.test(value) || (value.length - 2) % 4 !== 0) return null;
  // Standard base64 is base64url with two other letters and padding.
  return fromBase64Url(value.slice(1, -1).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let i = 0; i < a.byteLength; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
