import type { CitedEvidence } from '../cited-evidence.js';
import { StoreError } from '../store-error.js';
import type { InMemoryTables } from './in-memory-tables.js';

/** The evidence rows of `workflowId` with these ids, each with the provenance of the call (audit) that returned it. */
export function readCitedEvidence(
  tables: InMemoryTables,
  workflowId: string,
  evidenceIds: readonly string[],
): CitedEvidence[] {
  const wanted = new Set(evidenceIds);
  return [...tables.evidence.values()]
    .filter((row) => row.workflowId === workflowId && wanted.has(row.evidenceId))
    .map((row) => {
      const audit = tables.audits.get(row.auditId);
      // Evidence rows are written with their audit row, in one step.
      if (audit === undefined)
        throw new StoreError('internal', { problem: 'evidence without its audit', auditId: row.auditId });
      const { provenance } = audit.modelResult;
      return {
        evidenceId: row.evidenceId,
        source: row.source,
        observedAt: row.observedAt,
        call: {
          sourceLabel: provenance.source_label,
          observedAt: provenance.observed_at,
          retrievedAt: provenance.retrieved_at,
          trust: provenance.trust,
          validUntil: provenance.valid_until ?? null,
        },
      };
    });
}
