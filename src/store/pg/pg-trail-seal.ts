import {
  anchorDigest,
  GENESIS_ANCHOR_SHA256,
  SEAL_RANGE_ROWS,
  signAnchorDigest,
  type AnchorBody,
  type AnchorSigningKey,
  type AuditAnchor,
} from '../audit-trail/anchor.js';
import { auditLeaf, microsecondIso, type AuditLeafFields } from '../audit-trail/audit-leaf.js';
import { merkleRoot } from '../audit-trail/merkle.js';
import { periodOf } from '../audit-trail/months.js';
import { ANCHOR_COLUMNS, LEAF_COLUMNS } from './pg-trail-rows.js';
import { inTransaction, type PgDatabase, type Queryable } from './sql-runner.js';

/** Advisory lock (two-key form) that only sealers (and retention) take: writers never wait for a seal. */
export const SEAL_LOCK = [1953784581, 0] as const;

/** Options of {@link sealAuditTrail}. */
export interface SealOptions {
  /** Signs every new anchor (Ed25519); the database never sees the key. */
  readonly signingKey?: AnchorSigningKey | null;
  /** The clock of `sealed_at`; defaults to the system clock. */
  readonly now?: () => Date;
}

/** What a seal did: the anchors it appended (oldest first), the horizon it sealed up to, and the chain's head now. */
export interface SealReport {
  readonly sealed: readonly AuditAnchor[];
  /** Every row written by a transaction older than this (a transaction id) is sealed now. */
  readonly horizon: string;
  readonly head: AuditAnchor | null;
}

/**
 * Seals the audit rows whose transactions have all ended: the oldest transaction still running anywhere
 * (`pg_snapshot_xmin`) is the horizon, and every row stamped with an older transaction is final — no writer is waited
 * for or blocked; sealers exclude each other with an advisory lock. From where the previous seal ended, the rows are cut
 * into ranges of about {@link SEAL_RANGE_ROWS} (never splitting a transaction) and each range's rows of each month
 * become one anchor, chained to the one before. A span with no rows is sealed by the next seal that finds some.
 * One transaction: a seal appends all its anchors or none.
 */
export async function sealAuditTrail(database: PgDatabase, options: SealOptions = {}): Promise<SealReport> {
  const now = options.now ?? (() => new Date());
  return inTransaction(database, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1, $2)', [...SEAL_LOCK]);
    const [{ horizon, sealer } = { horizon: '0', sealer: '' }] = await tx.query<{ horizon: string; sealer: string }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon, current_user AS sealer',
      [],
    );
    let head =
      (
        await tx.query<AuditAnchor>(
          `SELECT ${ANCHOR_COLUMNS} FROM ${tx.table('ttc_audit_anchors')} ORDER BY anchor_no DESC LIMIT 1`,
          [],
        )
      )[0] ?? null;
    const sealed: AuditAnchor[] = [];
    let from = head?.xact_to ?? '0';
    while (BigInt(from) < BigInt(horizon)) {
      const to = await rangeEnd(tx, from, horizon);
      const rows = await tx.query<AuditLeafFields>(rangeRowsSql(tx), [from, to]);
      // No row below the horizon: nothing to seal until a later seal finds some (the span stays open).
      if (rows.length === 0) break;
      for (const [period, members] of byMonth(rows)) {
        const leaves = members.map(auditLeaf);
        const body: AnchorBody = {
          anchor_no: (head?.anchor_no ?? 0) + 1,
          period,
          xact_from: from,
          xact_to: to,
          row_count: members.length,
          merkle_root: merkleRoot(leaves),
          prev_anchor_sha256: head?.anchor_sha256 ?? GENESIS_ANCHOR_SHA256,
          sealed_at: microsecondIso(now()),
          sealed_by: sealer,
        };
        const anchorSha256 = anchorDigest(body);
        const key = options.signingKey ?? null;
        const anchor: AuditAnchor = {
          ...body,
          anchor_sha256: anchorSha256,
          key_id: key?.keyId ?? null,
          signature: key === null ? null : signAnchorDigest(anchorSha256, key),
        };
        await insertAnchor(tx, anchor, Buffer.concat(leaves));
        sealed.push(anchor);
        head = anchor;
      }
      from = to;
    }
    return { sealed, horizon, head };
  });
}

/**
 * Where the range that starts at `from` ends: before the transaction of its (SEAL_RANGE_ROWS + 1)th row, so it holds
 * at most that many rows — or just after it, when one transaction alone wrote more — or at the horizon.
 */
async function rangeEnd(tx: Queryable, from: string, horizon: string): Promise<string> {
  const rows = await tx.query<{ xact: string }>(rangeEndSql(tx), [from, horizon, SEAL_RANGE_ROWS]);
  const beyond = rows[0]?.xact;
  if (beyond === undefined) return horizon;
  return beyond === from ? (BigInt(from) + 1n).toString() : beyond;
}

/** The transaction of the `$3`+1th row written by transactions in [`$1`, `$2`), in (xact, seq) order. */
export function rangeEndSql(db: Queryable): string {
  return `SELECT a.xact::text AS xact FROM ${db.table('ttc_audit')} a WHERE xact >= $1::bigint AND xact < $2::bigint ORDER BY a.xact, a.seq OFFSET $3 LIMIT 1`;
}

/** The leaf columns of the rows written by transactions in [`$1`, `$2`), in (xact, seq) order. */
export function rangeRowsSql(db: Queryable): string {
  return `SELECT ${LEAF_COLUMNS} FROM ${db.table('ttc_audit')} a WHERE xact >= $1::bigint AND xact < $2::bigint ORDER BY a.xact, a.seq`;
}

/** Rows grouped by month (UTC), months in order, each in (xact, seq) order as read. */
function byMonth(rows: readonly AuditLeafFields[]): [string, AuditLeafFields[]][] {
  const months = new Map<string, AuditLeafFields[]>();
  for (const row of rows) {
    const period = periodOf(row.recorded_at);
    const members = months.get(period);
    if (members === undefined) months.set(period, [row]);
    else members.push(row);
  }
  return [...months].sort(([a], [b]) => (a < b ? -1 : 1));
}

async function insertAnchor(tx: Queryable, anchor: AuditAnchor, leaves: Buffer): Promise<void> {
  await tx.query(
    `INSERT INTO ${tx.table('ttc_audit_anchors')} (anchor_no, period, xact_from, xact_to, row_count, leaves, merkle_root, prev_anchor_sha256, anchor_sha256, sealed_at, sealed_by, key_id, signature)
     VALUES ($1, $2::date, $3::bigint, $4::bigint, $5, $6, $7, $8, $9, $10::timestamptz, $11, $12, $13)`,
    [
      anchor.anchor_no,
      anchor.period,
      anchor.xact_from,
      anchor.xact_to,
      anchor.row_count,
      leaves,
      anchor.merkle_root,
      anchor.prev_anchor_sha256,
      anchor.anchor_sha256,
      anchor.sealed_at,
      anchor.sealed_by,
      anchor.key_id,
      anchor.signature,
    ],
  );
}
