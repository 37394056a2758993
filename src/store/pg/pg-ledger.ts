import type { ModelResult } from '../../contract/model-result.js';
import { asLocalReplay } from '../../contract/settled-results.js';
import { checkSha256, checkText } from '../input-checks.js';
import { checkLeaseRequest, type LeaseState } from '../lease.js';
import type { AuditRef, ClaimInput, ClaimResult, LedgerEntry, LedgerStatus } from '../ledger.js';
import {
  auditRefOfRow,
  joinedAuditColumns,
  joinedAuditRow,
  verifiedAuditRecord,
  verifiedModelResult,
  type JoinedAuditColumns,
} from './pg-audit-rows.js';
import type { Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';
import { isoOf, isoOrNull } from '../timestamps.js';

interface LedgerRow extends JoinedAuditColumns {
  readonly idempotency_key: string;
  readonly request_sha256: string;
  readonly tool: string;
  readonly workflow_id: string;
  readonly call_id: string;
  readonly status: LedgerStatus;
  readonly model_result_json: string | null;
  readonly audit_id: string | null;
  readonly claimed_at: Date;
  readonly completed_at: Date | null;
  readonly lease_expires_at: Date | null;
  readonly dispatched_at: Date | null;
  readonly lease_revoked_at: Date | null;
  readonly fenced_holders: string[];
  readonly late_commit_audit_id: string | null;
}

/** A ledger row with the audit of its last recorded attempt, which is verified before the row is used. */
const selectLedger = (db: Queryable): string => `
  SELECT l.idempotency_key, l.request_sha256, l.tool, l.workflow_id, l.call_id, l.status, l.model_result_json, l.audit_id,
         l.claimed_at, l.completed_at, l.lease_expires_at, l.dispatched_at, l.lease_revoked_at, l.fenced_holders, l.late_commit_audit_id,
         ${joinedAuditColumns('a')}
    FROM ${db.table('ttc_ledger')} l LEFT JOIN ${db.table('ttc_audit')} a ON a.audit_id = l.audit_id
   WHERE l.idempotency_key = $1`;

/**
 * Claims a key with one atomic statement: the primary key lets exactly one of any number of racing inserts win,
 * and a `released` key (nothing ran) is re-claimed only by a claimer with the same request digest that reconciliation
 * has not fenced out of it. A lease's deadline is taken on the database's clock.
 */
export async function claimIdempotencyKey(db: Queryable, input: ClaimInput, now: Date): Promise<ClaimResult> {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  const requestSha256 = checkSha256(input.requestSha256, 'requestSha256');
  const workflowId = checkText(input.workflowId, 'workflowId');
  const callId = checkText(input.callId, 'callId');
  const lease = checkLeaseRequest({ workflowId, callId, ...(input.lease === undefined ? {} : { lease: input.lease }) });
  const params = [
    key,
    requestSha256,
    checkText(input.tool, 'tool'),
    workflowId,
    callId,
    now,
    lease?.holder ?? null,
    lease?.token ?? null,
    lease?.durationMs ?? null,
  ];
  const won = await db.query<{ claimed_at: Date; lease_token: string | null; lease_expires_at: Date | null }>(
    `INSERT INTO ${db.table('ttc_ledger')} (idempotency_key, request_sha256, tool, workflow_id, call_id, status, claimed_at, lease_holder, lease_token, lease_expires_at)
     VALUES ($1, $2, $3, $4, $5, 'claimed', $6, $7, $8, clock_timestamp() + $9::double precision * interval '1 millisecond')
     ON CONFLICT (idempotency_key) DO UPDATE
       SET status = 'claimed', tool = EXCLUDED.tool, workflow_id = EXCLUDED.workflow_id, call_id = EXCLUDED.call_id, claimed_at = EXCLUDED.claimed_at,
           lease_holder = EXCLUDED.lease_holder, lease_token = EXCLUDED.lease_token, lease_expires_at = EXCLUDED.lease_expires_at,
           dispatched_at = NULL, lease_revoked_at = NULL
       WHERE ttc_ledger.status = 'released' AND ttc_ledger.request_sha256 = EXCLUDED.request_sha256
         AND (EXCLUDED.lease_holder IS NULL OR NOT EXCLUDED.lease_holder = ANY (ttc_ledger.fenced_holders))
     RETURNING claimed_at, lease_token, lease_expires_at`,
    params,
  );
  const claimed = won[0];
  if (claimed) {
    const granted =
      claimed.lease_token !== null && claimed.lease_expires_at !== null
        ? { token: claimed.lease_token, expiresAt: isoOf(claimed.lease_expires_at) }
        : null;
    return { kind: 'claimed', claimedAt: isoOf(claimed.claimed_at), lease: granted };
  }

  const row = (await db.query<LedgerRow>(selectLedger(db), [key]))[0];
  // Rows are never deleted, so the row that beat this insert is visible to this later statement.
  if (!row) throw new StoreError('internal', { idempotencyKey: key, problem: 'ledger row vanished' });
  if (row.request_sha256 !== requestSha256)
    return { kind: 'conflict', recordedRequestSha256: row.request_sha256, recordedTool: row.tool };
  if (row.status === 'released' && lease !== null && row.fenced_holders.includes(lease.holder))
    return { kind: 'fenced' };
  const auditRef = auditRefOf(row);
  if (row.status === 'completed' && row.model_result_json !== null && auditRef !== null) {
    return {
      kind: 'replay',
      modelResult: asLocalReplay(verifiedModelResult(row.model_result_json, auditRef.result_sha256, auditRef.audit_id)),
      auditRef,
    };
  }
  return {
    kind: 'in_progress',
    // `released` here means another claimer released it between the two statements; it is being re-run elsewhere.
    state: row.status === 'unknown' ? 'outcome_unknown' : 'running',
    claimedAt: isoOf(row.claimed_at),
    claimedBy: { workflowId: row.workflow_id, callId: row.call_id },
    auditRef,
  };
}

/** The ledger row of a key, or `null`. */
export async function getLedgerEntry(db: Queryable, idempotencyKey: string): Promise<LedgerEntry | null> {
  const row = (await db.query<LedgerRow>(selectLedger(db), [checkText(idempotencyKey, 'idempotencyKey')]))[0];
  if (!row) return null;
  const auditRef = auditRefOf(row);
  const modelResult: ModelResult | null =
    row.model_result_json === null || auditRef === null
      ? null
      : verifiedModelResult(row.model_result_json, auditRef.result_sha256, auditRef.audit_id);
  return {
    idempotencyKey: row.idempotency_key,
    requestSha256: row.request_sha256,
    tool: row.tool,
    workflowId: row.workflow_id,
    callId: row.call_id,
    status: row.status,
    modelResult,
    auditRef,
    claimedAt: isoOf(row.claimed_at),
    completedAt: isoOrNull(row.completed_at),
    lease: leaseStateOf(row),
    lateCommitAuditId: row.late_commit_audit_id,
  };
}

function leaseStateOf(row: LedgerRow): LeaseState | null {
  if (row.lease_expires_at === null) return null;
  return {
    expiresAt: isoOf(row.lease_expires_at),
    dispatchedAt: isoOrNull(row.dispatched_at),
    revokedAt: isoOrNull(row.lease_revoked_at),
  };
}

/**
 * The reference to the row's last recorded audit, after verifying that audit (a replay hands its reference to
 * history, and a tampered audit must not be vouched for there). `null` while no attempt was recorded.
 */
function auditRefOf(row: LedgerRow): AuditRef | null {
  const audit = joinedAuditRow(row);
  if (audit === null) return null;
  verifiedAuditRecord(audit);
  return auditRefOfRow(audit);
}
