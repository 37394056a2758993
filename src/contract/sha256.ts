import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalJson } from './canonical-json.js';

/**
 * A SHA-256 implementation: the digest of `input` (text as its UTF-8 bytes) as lowercase hex. Every implementation
 * gives the same digests; they differ only in speed and in where they can run.
 */
export type Sha256Hex = (input: string | Uint8Array) => string;

/**
 * SHA-256 as lowercase hex. Pure JavaScript on purpose: the same code runs in activities and inside the Temporal
 * workflow sandbox, which has no `crypto`.
 */
export function sha256Hex(input: string | Uint8Array): string {
  return bytesToHex(sha256(typeof input === 'string' ? utf8ToBytes(input) : input));
}

/** `H(value)` of the spec: SHA-256 over the RFC 8785 canonical JSON of `value`. */
export function digestJson(value: unknown, hash: Sha256Hex = sha256Hex): string {
  return hash(canonicalJson(value));
}
