// Verify's comparison of audit rows with the references their runs' Temporal histories carry.
import type { AuditRecord } from '../../contract/audit-record.js';
import type { HistoryLookup, TrailRun } from '../audit-trail/trail-report.js';
import type { TrailFinding, TrailNote } from '../audit-trail/trail-findings.js';
import type { AuditRef } from '../ledger.js';
import type { Queryable } from './sql-runner.js';

/** What the comparison found, and how many runs it compared. */
export interface HistoryComparison {
  readonly findings: TrailFinding[];
  readonly notes: TrailNote[];
  readonly runs: number;
}

/** The digests a history reference and an audit row must agree on (a reference from before `audit_sha256` has only three). */
const REFERENCE_DIGESTS = ['audit_sha256', 'request_sha256', 'result_sha256', 'call_binding_sha256'] as const;

/**
 * Compares each run's audit rows with the audit references its history carries — history is where the database's
 * owner cannot reach. A reference whose row is gone (and not retired: it was recorded after the last month retention
 * dropped) is `missing`; one whose digests differ from the row's (a record rewritten together with its digest) is
 * `differs`. A row of a Temporal attempt its run never referenced is a note: the attempt may have failed after it
 * was recorded.
 */
export async function compareWithHistory(
  db: Queryable,
  lookup: HistoryLookup,
  runs: readonly TrailRun[],
  retiredBefore: string,
): Promise<HistoryComparison> {
  const findings: TrailFinding[] = [];
  const notes: TrailNote[] = [];
  let compared = 0;
  for (const { workflow_id, run_id } of runs) {
    const references = await lookup.references(workflow_id, run_id);
    if (references === null) {
      notes.push({ kind: 'history_not_found', workflow_id, run_id });
      continue;
    }
    compared += 1;
    const referenced = new Map(references.map((reference) => [reference.ref.audit_id, reference]));
    const rows = await db.query<AuditRef & { audit_sha256: string; audit_json: string }>(runRowsSql(db), [
      workflow_id,
      run_id,
    ]);
    for (const row of rows) {
      const reference = referenced.get(row.audit_id);
      referenced.delete(row.audit_id);
      if (reference === undefined) {
        if (recordedInTemporal(row.audit_json))
          notes.push({ kind: 'not_in_history', workflow_id, run_id, audit_id: row.audit_id });
        continue;
      }
      const field = REFERENCE_DIGESTS.find(
        (digest) => reference.ref[digest] !== undefined && reference.ref[digest] !== row[digest],
      );
      if (field !== undefined)
        findings.push({ kind: 'history', workflow_id, run_id, audit_id: row.audit_id, problem: 'differs', field });
    }
    const unmatched = [...referenced.values()];
    if (unmatched.length === 0) continue;
    const elsewhere = new Set(
      (
        await db.query<{ audit_id: string }>(
          `SELECT audit_id FROM ${db.table('ttc_audit')} WHERE audit_id = ANY($1::text[])`,
          [unmatched.map((r) => r.ref.audit_id)],
        )
      ).map((row) => row.audit_id),
    );
    for (const { ref, at } of unmatched) {
      if (elsewhere.has(ref.audit_id) || at < retiredBefore) continue;
      findings.push({ kind: 'history', workflow_id, run_id, audit_id: ref.audit_id, problem: 'missing' });
    }
  }
  return { findings, notes, runs: compared };
}

/** The digests and records of the rows of run `$2` of workflow `$1`. */
export function runRowsSql(db: Queryable): string {
  return `SELECT audit_id, request_sha256, result_sha256, call_binding_sha256, audit_sha256, audit_json FROM ${db.table('ttc_audit')} WHERE workflow_id = $1 AND run_id = $2`;
}

/** Whether a stored record names Temporal coordinates (an attempt outside Temporal has no history to be in). */
function recordedInTemporal(auditJson: string): boolean {
  try {
    return (JSON.parse(auditJson) as Pick<AuditRecord, 'temporal'>).temporal != null;
  } catch {
    return false;
  }
}
