import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../contract/canonical-json.js';
import { sha256OfBytes } from '../byte-digest.js';

/** The anchor format; part of every anchor digest. */
export const AUDIT_ANCHOR_VERSION = 'ttc.audit-anchor.v1';

/** What the first anchor chains to. */
export const GENESIS_ANCHOR_SHA256 = '0'.repeat(64);

/**
 * About how many rows one seal range holds (a range never splits a transaction): an anchor keeps its leaves, 32 bytes
 * each, and the sealer and verify hold one range's rows in memory at a time.
 */
export const SEAL_RANGE_ROWS = 10_000;

/**
 * One sealed segment of the audit (table `ttc_audit_anchors`, and a line of a published anchors file or an export):
 * the rows of month `period` written by transactions in [`xact_from`, `xact_to`), `row_count` of them, whose leaves
 * (in (xact, seq) order) have the Merkle root `merkle_root`. `anchor_sha256` is the digest of all of that and of the
 * previous anchor's digest, so each anchor vouches for every one before it. Snake case: it is published outside the
 * database as is. Transaction ids are decimal strings (bigints).
 */
export interface AuditAnchor {
  readonly anchor_no: number;
  /** The first day of the month (UTC) of the rows, `YYYY-MM-01`. */
  readonly period: string;
  readonly xact_from: string;
  readonly xact_to: string;
  readonly row_count: number;
  readonly merkle_root: string;
  readonly prev_anchor_sha256: string;
  readonly anchor_sha256: string;
  /** When it was sealed, to the microsecond (`microsecondIso`), and by which database role. */
  readonly sealed_at: string;
  readonly sealed_by: string;
  /** An Ed25519 signature (base64url) of `anchor_sha256`, by key `key_id`, or both null. */
  readonly key_id: string | null;
  readonly signature: string | null;
}

/** The fields an anchor's digest covers: everything but the digest and its signature. */
export type AnchorBody = Omit<AuditAnchor, 'anchor_sha256' | 'key_id' | 'signature'>;

/** `anchor_sha256`: SHA-256 of the canonical JSON of the body. */
export function anchorDigest(body: AnchorBody): string {
  return sha256OfBytes(
    canonicalJson({
      v: AUDIT_ANCHOR_VERSION,
      anchor_no: body.anchor_no,
      period: body.period,
      xact_from: body.xact_from,
      xact_to: body.xact_to,
      row_count: body.row_count,
      merkle_root: body.merkle_root,
      prev_anchor_sha256: body.prev_anchor_sha256,
      sealed_at: body.sealed_at,
      sealed_by: body.sealed_by,
    }),
  );
}

/** An Ed25519 key that signs anchors (a sealer's); the database never holds it. */
export interface AnchorSigningKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
}

/** The signature of an anchor digest (Ed25519 over its ASCII hex), base64url. */
export function signAnchorDigest(anchorSha256: string, key: AnchorSigningKey): string {
  return sign(null, Buffer.from(anchorSha256, 'ascii'), key.privateKey).toString('base64url');
}

/** Why an anchor's signature does not hold against the verifying keys (Ed25519 public keys by id), or `null`. */
export function anchorSignatureProblem(
  anchor: AuditAnchor,
  keys: ReadonlyMap<string, KeyObject>,
): 'unsigned' | 'unknown_key' | 'bad_signature' | null {
  if (anchor.key_id === null || anchor.signature === null) return 'unsigned';
  const key = keys.get(anchor.key_id);
  if (key === undefined) return 'unknown_key';
  try {
    return verify(null, Buffer.from(anchor.anchor_sha256, 'ascii'), key, Buffer.from(anchor.signature, 'base64url'))
      ? null
      : 'bad_signature';
  } catch {
    return 'bad_signature';
  }
}
