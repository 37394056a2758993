import { createHash } from 'node:crypto';
import type { Sha256Hex } from '../src/contract/sha256.js';

/**
 * `node:crypto`'s SHA-256, for the digests a call takes in an activity: the same digests as the contract's
 * pure-JavaScript `sha256Hex` (which the workflow sandbox needs), several times faster on a large result.
 */
export const nodeSha256Hex: Sha256Hex = (input) => createHash('sha256').update(input).digest('hex');
