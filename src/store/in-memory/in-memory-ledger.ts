import type { AuditRecord } from '../../contract/audit-record.js';
import { asLocalReplay } from '../../contract/settled-results.js';
import { toCanonicalText } from '../canonical-text.js';
import { sha256OfBytes } from '../byte-digest.js';
import { checkSha256, checkText } from '../input-checks.js';
import { checkLeaseRequest, lateResultEscalation } from '../lease.js';
import {
  auditRefOf,
  ledgerStatusFor,
  type AuditRef,
  type ClaimInput,
  type ClaimResult,
  type LedgerEntry,
  type RecordExecutionInput,
} from '../ledger.js';
import { checkRecordedWorkflow } from '../recorded-workflow.js';
import { StoreError } from '../store-error.js';
import { putArtifact } from './in-memory-artifacts.js';
import { escalateLateResult } from './in-memory-reconciliation.js';
import { copy, type InMemoryTables, type LedgerRow } from './in-memory-tables.js';

/**
 * Claims a key: the first claimer, or a claimer after a release that reconciliation has not fenced out of the key,
 * gets `claimed` (with a lease when it asked for one); everyone else learns why not.
 */
export function claimIdempotencyKey(tables: InMemoryTables, input: ClaimInput, now: string): ClaimResult {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  const requestSha256 = checkSha256(input.requestSha256, 'requestSha256');
  const lease = checkLeaseRequest(input);
  const row = tables.ledger.get(key);
  const claim = (): ClaimResult => {
    const granted =
      lease === null
        ? null
        : {
            holder: lease.holder,
            token: lease.token,
            expiresAt: new Date(Date.parse(now) + lease.durationMs).toISOString(),
            dispatchedAt: null,
            revokedAt: null,
          };
    tables.ledger.set(key, {
      requestSha256,
      tool: input.tool,
      workflowId: input.workflowId,
      callId: input.callId,
      status: 'claimed',
      modelResult: row?.modelResult ?? null,
      auditRef: row?.auditRef ?? null,
      claimedAt: now,
      completedAt: null,
      lease: granted,
      fencedHolders: row?.fencedHolders ?? [],
      lateCommitAuditId: null,
    });
    return {
      kind: 'claimed',
      claimedAt: now,
      lease: granted && { token: granted.token, expiresAt: granted.expiresAt },
    };
  };
  if (!row) return claim();
  if (row.requestSha256 !== requestSha256)
    return { kind: 'conflict', recordedRequestSha256: row.requestSha256, recordedTool: row.tool };
  if (row.status === 'released')
    return lease !== null && row.fencedHolders.includes(lease.holder) ? { kind: 'fenced' } : claim();
  if (row.status === 'completed' && row.modelResult && row.auditRef)
    return { kind: 'replay', modelResult: asLocalReplay(copy(row.modelResult)), auditRef: row.auditRef };
  return {
    kind: 'in_progress',
    state: row.status === 'unknown' ? 'outcome_unknown' : 'running',
    claimedAt: row.claimedAt,
    claimedBy: { workflowId: row.workflowId, callId: row.callId },
    auditRef: row.auditRef,
  };
}

/**
 * Records one attempt: its audit (once), evidence and artifacts, and the ledger status its result implies. A
 * completed row is final; a result that did not complete moves the row only under the claim it was made for.
 */
export function recordExecution(tables: InMemoryTables, input: RecordExecutionInput, now: string): AuditRef {
  checkRecordedWorkflow(input);
  const { audit, modelResult, artifacts, evidenceSources } = input.execution;
  const modelResultJson = toCanonicalText(modelResult, 'execution.modelResult');
  if (sha256OfBytes(modelResultJson) !== audit.bindings.result_sha256)
    throw new StoreError('digest_mismatch', { what: 'model_result', auditId: audit.audit_id });
  const auditSha256 = sha256OfBytes(toCanonicalText(audit, 'execution.audit'));
  const existing = tables.audits.get(audit.audit_id);
  // A second record under an audit id must carry the same bindings; the stored record (and its digest) stays.
  const ref = existing ? auditRefOf(existing.audit, existing.auditSha256) : auditRefOf(audit, auditSha256);
  if (existing && !sameBindings(ref, audit.bindings))
    throw new StoreError('audit_id_reused', { auditId: audit.audit_id });
  for (const artifact of artifacts) putArtifact(tables, artifact);
  if (!existing) {
    tables.audits.set(audit.audit_id, {
      auditId: audit.audit_id,
      workflowId: input.workflowId,
      runId: input.runId,
      callId: audit.call_id,
      attempt: audit.attempt,
      idempotencyKey: audit.idempotency_key,
      recordedAt: now,
      auditSha256,
      audit: copy(audit),
      modelResult: copy(modelResult),
    });
  }
  for (const item of modelResult.evidence) {
    const id = `${input.workflowId}\u0000${audit.call_id}\u0000${item.evidence_id}`;
    if (tables.evidence.has(id)) continue;
    tables.evidence.set(id, {
      evidenceId: item.evidence_id,
      workflowId: input.workflowId,
      callId: audit.call_id,
      auditId: audit.audit_id,
      kind: item.kind,
      locator: item.locator,
      supports: [...item.supports],
      quote: item.quote ?? null,
      observedAt: item.observed_at ?? null,
      source: evidenceSources[item.evidence_id] ?? modelResult.provenance.source_label,
    });
  }
  const row = tables.ledger.get(audit.idempotency_key);
  const status = ledgerStatusFor(modelResult);
  if (!row) {
    tables.ledger.set(audit.idempotency_key, {
      requestSha256: ref.request_sha256,
      tool: audit.tool,
      workflowId: input.workflowId,
      callId: audit.call_id,
      status,
      modelResult: copy(modelResult),
      auditRef: ref,
      claimedAt: now,
      completedAt: status === 'completed' ? now : null,
      lease: null,
      fencedHolders: [],
      lateCommitAuditId: null,
    });
  } else if (row.requestSha256 !== ref.request_sha256) {
    throw new StoreError('idempotency_conflict', {
      idempotencyKey: audit.idempotency_key,
      auditId: audit.audit_id,
      recordedRequestSha256: row.requestSha256,
    });
  } else if (recordMovesRow(row, input, status === 'completed')) {
    Object.assign(row, {
      status,
      modelResult: copy(modelResult),
      auditRef: ref,
      completedAt: status === 'completed' ? now : null,
    });
    // As in Postgres: a leased record ends its lease (its attempt dispatches nothing more).
    if (input.leaseToken !== undefined && row.lease !== null && Date.parse(now) < Date.parse(row.lease.expiresAt))
      row.lease = { ...row.lease, expiresAt: now };
  } else {
    const reason = lateResultEscalation(input);
    if (reason !== null && row.status !== 'completed') {
      escalateLateResult(
        tables,
        {
          idempotencyKey: audit.idempotency_key,
          auditId: audit.audit_id,
          workflowId: input.workflowId,
          callId: audit.call_id,
          tool: audit.tool,
          reason,
        },
        now,
      );
    }
  }
  return ref;
}

function sameBindings(a: AuditRef, b: AuditRecord['bindings']): boolean {
  return (
    a.request_sha256 === b.request_sha256 &&
    a.result_sha256 === b.result_sha256 &&
    a.call_binding_sha256 === b.call_binding_sha256
  );
}

/** The pg store's ledger rule (see updateLedger there): completed and disputed rows stay; a leased record needs its claim. */
function recordMovesRow(row: LedgerRow, input: RecordExecutionInput, completes: boolean): boolean {
  if (row.status === 'completed' || row.lateCommitAuditId !== null) return false;
  if (input.leaseToken !== undefined) return row.lease?.token === input.leaseToken && row.status === 'claimed';
  return completes || input.claimedAt === undefined || (row.claimedAt === input.claimedAt && row.status === 'claimed');
}

/** The ledger row of a key, as a copy. */
export function getLedgerEntry(tables: InMemoryTables, idempotencyKey: string): LedgerEntry | null {
  const row = tables.ledger.get(idempotencyKey);
  if (!row) return null;
  const {
    requestSha256,
    tool,
    workflowId,
    callId,
    status,
    auditRef,
    claimedAt,
    completedAt,
    lease,
    lateCommitAuditId,
  } = row;
  return {
    idempotencyKey,
    requestSha256,
    tool,
    workflowId,
    callId,
    status,
    auditRef,
    claimedAt,
    completedAt,
    lateCommitAuditId,
    modelResult: row.modelResult && copy(row.modelResult),
    lease: lease && { expiresAt: lease.expiresAt, dispatchedAt: lease.dispatchedAt, revokedAt: lease.revokedAt },
  };
}
