import { StoreError } from '../store-error.js';
import type { InMemoryTables } from './in-memory-tables.js';

/**
 * Refuses evidence ids that no call of `workflowId` returned. An id another workflow returned counts as absent:
 * evidence ids are content digests, so only the citing workflow's own calls can vouch for one.
 */
export function assertEvidenceInWorkflow(tables: InMemoryTables, workflowId: string, ids: readonly string[]): void {
  const known = new Set([...tables.evidence.values()].filter((e) => e.workflowId === workflowId).map((e) => e.evidenceId));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0) throw new StoreError('evidence_not_found', { workflowId, missing });
}
