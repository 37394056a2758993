import type { Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';

/**
 * Refuses ids that no call of `workflowId` returned as evidence. Ids of other workflows count as missing: a
 * workflow can never cite (or learn about) another workflow's evidence.
 */
export async function assertEvidenceInWorkflow(db: Queryable, workflowId: string, evidenceIds: readonly string[]): Promise<void> {
  if (evidenceIds.length === 0) return;
  const rows = await db.query<{ evidence_id: string }>(
    'SELECT DISTINCT evidence_id FROM ttc_evidence WHERE workflow_id = $1 AND evidence_id = ANY($2::text[])',
    [workflowId, evidenceIds],
  );
  const found = new Set(rows.map((row) => row.evidence_id));
  const missing = evidenceIds.filter((id) => !found.has(id));
  if (missing.length > 0) throw new StoreError('evidence_not_found', { workflowId, missing });
}
