import type { AuditAnchor } from './anchor.js';
import { auditLeaf, type AuditLeafFields } from './audit-leaf.js';
import { merkleRoot } from './merkle.js';
import type { TrailFinding } from './trail-findings.js';

/** A sealed segment as verify finds it: its anchor, the leaves kept with it, and the rows that belong to it now. */
export interface SegmentUnderCheck {
  readonly anchor: AuditAnchor;
  /** The 32-byte leaf hashes kept with the anchor, in (xact, seq) order. */
  readonly leaves: readonly Uint8Array[];
  /** The rows the anchor's month and range select today, in (xact, seq) order (in an export: in file order). */
  readonly rows: readonly AuditLeafFields[];
  /**
   * Whether `rows` should be all of the segment (the database; an export of everything): a sealed leaf without a row
   * is then a deleted row. A partial export (one workflow) holds only some of them.
   */
  readonly complete: boolean;
}

/**
 * Checks one segment: the kept leaves make the anchor's root, and each row's leaf is a sealed leaf, in sealed order.
 * Rows whose leaf is not sealed are paired, in order, with the sealed leaves left over between the same two intact
 * rows: such a row was `changed` (rewritten with its digest, re-dated, renumbered, moved), one with no leaf left over
 * was `added`, and a leaf left over with no row (when the rows are complete) is a deleted row. Rows whose leaves are
 * all sealed but come in another order are `rows_reordered`.
 */
export function segmentFindings({ anchor, leaves, rows, complete }: SegmentUnderCheck): TrailFinding[] {
  const anchorNo = anchor.anchor_no;
  if (leaves.length !== anchor.row_count || merkleRoot(leaves) !== anchor.merkle_root)
    return [{ kind: 'segment_leaves', anchor_no: anchorNo }];
  const positions = new Map<string, number[]>();
  leaves.forEach((leaf, position) => {
    const hex = Buffer.from(leaf).toString('hex');
    const same = positions.get(hex);
    if (same === undefined) positions.set(hex, [position]);
    else same.push(position);
  });
  const placed = rows.map((row) => ({ row, position: positions.get(auditLeaf(row).toString('hex'))?.shift() }));
  const matched = placed.flatMap(({ position }) => (position === undefined ? [] : [position]));
  const findings: TrailFinding[] = [];
  if (matched.some((position, index) => index > 0 && position < matched[index - 1]!))
    findings.push({ kind: 'rows_reordered', anchor_no: anchorNo });
  const taken = new Set(matched);
  // Walk the rows; each intact row closes a gap of changed rows and left-over leaves since the previous one.
  let previous: { position: number; auditId: string | null } = { position: -1, auditId: null };
  let strays: AuditLeafFields[] = [];
  const end: { row: AuditLeafFields | null; position: number | undefined } = { row: null, position: leaves.length };
  for (const next of [...placed, end]) {
    if (next.position === undefined) {
      if (next.row !== null) strays.push(next.row);
      continue;
    }
    const leftOver: number[] = [];
    for (let position = previous.position + 1; position < next.position; position++)
      if (!taken.has(position)) leftOver.push(position);
    strays.forEach((row, index) =>
      findings.push({
        kind: 'row_not_as_sealed',
        anchor_no: anchorNo,
        audit_id: row.audit_id,
        seq: row.seq,
        how: index < leftOver.length ? 'changed' : 'added',
      }),
    );
    if (complete) {
      for (const position of leftOver.slice(strays.length))
        findings.push({
          kind: 'row_missing',
          anchor_no: anchorNo,
          position,
          after: previous.auditId,
          before: next.row?.audit_id ?? null,
        });
    }
    previous = { position: Math.max(previous.position, next.position), auditId: next.row?.audit_id ?? null };
    strays = [];
  }
  return findings;
}
