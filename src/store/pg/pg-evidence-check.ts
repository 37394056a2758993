import { readVerifiedEvidence } from './pg-evidence.js';
import type { Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';

/**
 * Refuses ids that no call of `workflowId` returned as evidence. Ids of other workflows count as missing: a
 * workflow can never cite (or learn about) another workflow's evidence. Each row found is verified against the
 * audit that recorded it, so a row moved here from another workflow fails `digest_mismatch` rather than counting.
 */
export async function assertEvidenceInWorkflow(db: Queryable, workflowId: string, evidenceIds: readonly string[]): Promise<void> {
  if (evidenceIds.length === 0) return;
  const found = new Set((await readVerifiedEvidence(db, { workflowId, evidenceIds })).map((row) => row.evidenceId));
  const missing = evidenceIds.filter((id) => !found.has(id));
  if (missing.length > 0) throw new StoreError('evidence_not_found', { workflowId, missing });
}
