import type { ToolExecution } from '../src/contract/execute-tool.js';
import { auditRefOf, type AuditRef } from '../src/store/ledger.js';
import type { SettleReconciliationInput } from '../src/store/reconciliation.js';
import { isStoreError } from '../src/store/store-error.js';
import type { WorkerStore } from '../src/store/tool-store.js';
import { activityWorkflow } from './call-context.js';
import type { ToolCallResult } from './tool-activity.js';

/**
 * What a record knows of its attempt's claim: when it was made, its lease token (for a leased claim), and whether the
 * attempt's request may have left after a verdict (see `RecordExecutionInput`).
 */
export interface ClaimedAttempt {
  readonly claimedAt: string;
  readonly leaseToken?: string;
  readonly possiblySentLate?: boolean;
}

/**
 * Persists one execution (audit, evidence, artifacts, ledger) under the current activity's workflow. Idempotent.
 * `attempt` carries the ledger claim the attempt holds, so a late record can never release a newer claim, and a late
 * result never overwrites a verdict reached without it.
 */
export function recordExecution(
  store: WorkerStore,
  execution: ToolExecution,
  attempt?: ClaimedAttempt,
): Promise<AuditRef> {
  return store.recordExecution({ execution, ...activityWorkflow(), ...attempt });
}

/**
 * Records a result whose audit id is fixed by the call rather than by the Temporal attempt (settlements,
 * reconciliation findings). When a retried activity finds that id already recorded — the earlier attempt recorded
 * it, then its completion never reached Temporal (a killed worker) — the recorded result is this call's result:
 * recording is not repeated, and the retry returns exactly what was audited. With `settles`, the result settles that
 * reconciliation in the same store step (an earlier attempt that recorded the result had settled it too).
 */
export async function recordOnce(
  store: WorkerStore,
  execution: ToolExecution,
  settles?: SettleReconciliationInput,
): Promise<ToolCallResult> {
  try {
    const auditRef =
      settles === undefined
        ? await recordExecution(store, execution)
        : await store.settleWithResult(settles, { execution, ...activityWorkflow() });
    return { modelResult: execution.modelResult, auditRef };
  } catch (error) {
    if (!isStoreError(error) || error.reason !== 'audit_id_reused') throw error;
    const recorded = await store.getAudit(execution.audit.audit_id);
    if (recorded === null) throw error;
    return { modelResult: recorded.modelResult, auditRef: auditRefOf(recorded.audit, recorded.auditSha256) };
  }
}
