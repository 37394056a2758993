import { createHash } from 'node:crypto';

/**
 * SHA-256 (lowercase hex) of UTF-8 text or raw bytes. The store uses node:crypto rather than the contract's
 * pure-JS digest because artifacts can be megabytes; both produce the same digest for the same bytes.
 */
export function sha256OfBytes(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}
