import type { ToolExecution } from '../src/contract/execute-tool.js';
import type { AuditRef } from '../src/store/ledger.js';
import type { ToolStore } from '../src/store/tool-store.js';
import { activityWorkflow } from './call-context.js';

/**
 * Persists one execution (audit, evidence, artifacts, ledger) under the current activity's workflow. Idempotent.
 * `claimedAt` is the ledger claim the attempt holds, so a late record can never release a newer claim.
 */
export function recordExecution(store: ToolStore, execution: ToolExecution, claimedAt?: string): Promise<AuditRef> {
  return store.recordExecution({ execution, ...activityWorkflow(), ...(claimedAt === undefined ? {} : { claimedAt }) });
}
