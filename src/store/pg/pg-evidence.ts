import { canonicalJson } from '../../contract/canonical-json.js';
import type { ModelResult } from '../../contract/model-result.js';
import { fromCanonicalText } from '../canonical-text.js';
import type { CitedEvidence } from '../cited-evidence.js';
import { StoreError } from '../store-error.js';
import type { EvidenceRecord } from '../stored-records.js';
import {
  joinedAuditColumns,
  joinedAuditRow,
  verifiedAuditRecord,
  verifiedModelResult,
  type JoinedAuditColumns,
} from './pg-audit-rows.js';
import type { Queryable } from './sql-runner.js';

/** Which evidence rows to read: one workflow, optionally one call and/or some evidence ids. */
export interface EvidenceFilter {
  readonly workflowId: string;
  readonly callId?: string;
  readonly evidenceIds?: readonly string[];
}

/** An evidence row with the audit row that recorded it (see {@link joinedAuditRow}). */
interface EvidenceWithAuditRow extends JoinedAuditColumns {
  readonly workflow_id: string;
  readonly call_id: string;
  readonly evidence_id: string;
  readonly audit_id: string;
  readonly record_json: string;
  readonly a_model_result_json: string | null;
}

const selectEvidence = (db: Queryable): string => `
  SELECT e.workflow_id, e.call_id, e.evidence_id, e.audit_id, e.record_json, ${joinedAuditColumns('a')}, a.model_result_json AS a_model_result_json
    FROM ${db.table('ttc_evidence')} e LEFT JOIN ${db.table('ttc_audit')} a ON a.audit_id = e.audit_id
   WHERE e.workflow_id = $1 AND ($2::text IS NULL OR e.call_id = $2) AND ($3::text[] IS NULL OR e.evidence_id = ANY($3::text[]))
   ORDER BY e.recorded_at, e.call_id, e.evidence_id`;

/**
 * Evidence rows as the API returns them, each verified against the audit that recorded it: that audit is intact
 * (see `verifiedAuditRecord`), belongs to the row's workflow and call, and its model result lists exactly this
 * evidence item. A row moved to another workflow or call, or edited, fails `digest_mismatch` instead of being
 * returned or cited. (The `source` label is the one field no digest covers: the model result does not carry it.)
 */
export async function readVerifiedEvidence(db: Queryable, filter: EvidenceFilter): Promise<EvidenceRecord[]> {
  return (await readVerified(db, filter)).map(({ record }) => record);
}

/**
 * The evidence a state patch or memory cites: the verified rows of `workflowId` with these ids, each with the
 * provenance of the call that returned it, from that call's verified model result.
 */
export async function readCitedEvidence(
  db: Queryable,
  workflowId: string,
  evidenceIds: readonly string[],
): Promise<CitedEvidence[]> {
  if (evidenceIds.length === 0) return [];
  return (await readVerified(db, { workflowId, evidenceIds })).map(({ record, modelResult: { provenance } }) => ({
    evidenceId: record.evidenceId,
    source: record.source,
    observedAt: record.observedAt,
    call: {
      sourceLabel: provenance.source_label,
      observedAt: provenance.observed_at,
      retrievedAt: provenance.retrieved_at,
      trust: provenance.trust,
      validUntil: provenance.valid_until ?? null,
    },
  }));
}

/** Evidence rows verified against the audits that recorded them, each with its audit's model result. */
async function readVerified(
  db: Queryable,
  filter: EvidenceFilter,
): Promise<{ record: EvidenceRecord; modelResult: ModelResult }[]> {
  const rows = await db.query<EvidenceWithAuditRow>(selectEvidence(db), [
    filter.workflowId,
    filter.callId ?? null,
    filter.evidenceIds ?? null,
  ]);
  // Several evidence rows share one audit: verify (hash and parse) each audit once.
  const modelResults = new Map<string, ModelResult>();
  return rows.map((row) => {
    const mismatch = (field: string) =>
      new StoreError('digest_mismatch', {
        what: 'evidence',
        auditId: row.audit_id,
        evidenceId: row.evidence_id,
        field,
      });
    const audit = joinedAuditRow(row);
    if (audit === null || row.a_model_result_json === null) throw mismatch('audit_id');
    let modelResult = modelResults.get(row.audit_id);
    if (modelResult === undefined) {
      verifiedAuditRecord(audit);
      modelResult = verifiedModelResult(row.a_model_result_json, audit.result_sha256, audit.audit_id);
      modelResults.set(row.audit_id, modelResult);
    }
    if (row.a_workflow_id !== row.workflow_id) throw mismatch('workflow_id');
    if (row.a_call_id !== row.call_id) throw mismatch('call_id');
    const { source, ...item } = fromCanonicalText(row.record_json) as unknown as EvidenceDocument;
    const listed = modelResult.evidence.find((evidence) => evidence.evidence_id === row.evidence_id);
    if (listed === undefined || canonicalJson(listed) !== canonicalJson(item)) throw mismatch('record_json');
    const record: EvidenceRecord = {
      evidenceId: item.evidence_id,
      workflowId: row.workflow_id,
      callId: row.call_id,
      auditId: row.audit_id,
      kind: item.kind,
      locator: item.locator,
      supports: item.supports,
      quote: item.quote ?? null,
      observedAt: item.observed_at ?? null,
      source,
    };
    return { record, modelResult };
  });
}

/** The exact evidence item (plus source) stored with an evidence row. */
interface EvidenceDocument {
  readonly evidence_id: string;
  readonly kind: string;
  readonly locator: string;
  readonly supports: string[];
  readonly quote?: string;
  readonly observed_at?: string;
  readonly source: string;
}
