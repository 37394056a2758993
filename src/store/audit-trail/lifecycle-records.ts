// The records the audit's lifecycle leaves (tables ttc_audit_retirements, ttc_erasures, ttc_retention_log), as verify
// and export show them. Snake case, as stored and exported.
import type { TrailNote } from './trail-findings.js';

/** One retention run that dropped months (`ttc_retire_before`). */
export interface AuditRetirement {
  /** Every month before this one (`YYYY-MM-01`) is gone. */
  readonly retired_before: string;
  readonly retired_at: string;
  readonly retired_by: string;
  readonly periods: readonly string[];
  readonly anchors: number;
  readonly last_anchor_no: number | null;
  readonly audit_rows: number;
  readonly evidence_rows: number;
  readonly artifact_rows: number;
  readonly ledger_rows: number;
  readonly label_rows: number;
  /** SHA-256 of the anchors file written before the cut. */
  readonly anchors_export_sha256: string;
}

/** One erasure's tombstone (`ttc_erase`). */
export interface ErasureRecord {
  readonly erasure_id: string;
  readonly erased_at: string;
  readonly erased_by: string;
  readonly erased_as: string;
  readonly scope: 'principal' | 'workflow';
  readonly scope_ref: string;
  readonly reason: string | null;
  readonly audit_ids: readonly string[];
  readonly artifacts: readonly string[];
  readonly memory_ids: readonly string[];
}

/** An artifact body `ttc_purge_before` removed. */
export interface ArtifactPurge {
  readonly sha256: string;
  readonly purged_at: string;
  readonly purged_by: string;
}

/** A retirement as verify's note. */
export function retirementNote(retirement: AuditRetirement): TrailNote {
  const { retired_before, retired_at, retired_by, anchors, audit_rows } = retirement;
  return { kind: 'retired', retired_before, retired_at, retired_by, anchors, audit_rows };
}

/** An erasure as verify's note. */
export function erasureNote(erasure: ErasureRecord): TrailNote {
  const { erasure_id, erased_at, erased_by, scope, artifacts } = erasure;
  return {
    kind: 'erased',
    erasure_id,
    erased_at,
    erased_by,
    scope,
    audit_ids: erasure.audit_ids.length,
    artifacts,
    memory_rows: erasure.memory_ids.length,
  };
}

/**
 * Why an artifact body an audit names may be absent without anything being wrong — erased, purged — or `null`. (A
 * retired month's rows are gone with their bodies, so verify never meets them.)
 */
export function absenceExplained(
  sha256: string,
  erasures: readonly ErasureRecord[],
  purges: readonly ArtifactPurge[],
): TrailNote | null {
  const erasure = erasures.find((candidate) => candidate.artifacts.includes(sha256));
  if (erasure !== undefined) return erasureNote(erasure);
  const purge = purges.find((candidate) => candidate.sha256 === sha256);
  return purge === undefined ? null : { kind: 'purged', ...purge };
}
