import { canonicalJson } from '../../contract/canonical-json.js';
import { leafHash } from './merkle.js';

/** The leaf format of a sealed audit row; part of every leaf, so a change of format can never match an old one. */
export const AUDIT_LEAF_VERSION = 'ttc.audit-leaf.v1';

/**
 * What a sealed segment commits to for each audit row: the digest of its whole record, where it stands in the order
 * (the transaction that wrote it and its seq) and in time, and whose it is. Rewriting a record (with or without its
 * digest), re-dating or renumbering a row, or moving it to another workflow changes its leaf. Every field is public
 * (`inspect` withholds none of them), so an export without the protected fields still proves its rows were sealed.
 * `xact` and `seq` are decimal strings (bigints), and `recorded_at` the stored time to the microsecond
 * ({@link microsecondIso}).
 */
export interface AuditLeafFields {
  readonly audit_id: string;
  readonly audit_sha256: string;
  readonly xact: string;
  readonly seq: string;
  readonly recorded_at: string;
  readonly workflow_id: string;
}

/** The 32-byte leaf hash of a row (RFC 6962 leaf over the canonical JSON of its fields). */
export function auditLeaf(row: AuditLeafFields): Buffer {
  const data = canonicalJson({
    v: AUDIT_LEAF_VERSION,
    audit_id: row.audit_id,
    audit_sha256: row.audit_sha256,
    xact: row.xact,
    seq: row.seq,
    recorded_at: row.recorded_at,
    workflow_id: row.workflow_id,
  });
  return leafHash(Buffer.from(data, 'utf8'));
}

/**
 * A time as the audit trail writes it: UTC to the microsecond (`2026-12-05T07:30:32.088410Z`), as Postgres keeps a
 * timestamptz, so a time read back from the database and one written from a JavaScript `Date` compare as text.
 */
export function microsecondIso(time: Date): string {
  return `${time.toISOString().slice(0, 23)}000Z`;
}
