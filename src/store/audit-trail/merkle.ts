import { createHash } from 'node:crypto';

/**
 * The Merkle tree of RFC 6962 (Certificate Transparency) over a segment's leaves: a leaf hash is SHA-256(0x00 ‖ data)
 * and an inner node SHA-256(0x01 ‖ left ‖ right), so no leaf can pass for a node (second preimages); an unbalanced
 * tree splits at the largest power of two below its size. The root of no leaves is SHA-256 of nothing.
 */
export function leafHash(data: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

/** The root of the tree over `leaves` (leaf hashes, in order), as lowercase hex. */
export function merkleRoot(leaves: readonly Uint8Array[]): string {
  if (leaves.length === 0) return createHash('sha256').digest('hex');
  return subtreeRoot(leaves, 0, leaves.length).toString('hex');
}

const LEAF_PREFIX = Buffer.from([0]);
const NODE_PREFIX = Buffer.from([1]);

function subtreeRoot(leaves: readonly Uint8Array[], from: number, to: number): Buffer {
  const size = to - from;
  if (size === 1) return Buffer.from(leaves[from]!);
  let split = 1;
  while (split * 2 < size) split *= 2;
  return createHash('sha256')
    .update(NODE_PREFIX)
    .update(subtreeRoot(leaves, from, from + split))
    .update(subtreeRoot(leaves, from + split, to))
    .digest();
}

/** 32-byte leaf hashes from their concatenation (how an anchor keeps them). */
export function splitLeaves(packed: Buffer): Buffer[] {
  return Array.from({ length: Math.floor(packed.length / 32) }, (_, index) =>
    packed.subarray(index * 32, index * 32 + 32),
  );
}
