import { catalogFailure } from '../src/contract/call-failure.js';
import type { AnyToolDefinition } from '../src/contract/define-tool.js';
import { failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import { humanCommitted, notCommitted, withOutcomeUnknown, type HumanResolution, type UnsettledBecause } from '../src/contract/settled-results.js';
import { activityExecutionContext } from './call-context.js';
import { AUDIT_ATTEMPT_BASE, type CallIdentity } from './call-identity.js';
import { recordOnce } from './record-execution.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import type { ToolCallResult } from './tool-activity.js';

export type { HumanResolution } from '../src/contract/settled-results.js';

/** How a call ends without its handler running (now). */
export type Settlement =
  /** The approver rejected the exact request. */
  | { readonly kind: 'approval_rejected'; readonly approver: string; readonly reason: string | null }
  /** No valid decision before the deadline: fail closed. */
  | { readonly kind: 'approval_expired'; readonly invalidDecisions: number }
  /**
   * The authoritative system says the write did not happen, and the tool does not allow a safe retry.
   * `unsettledBecause` is absent in settlements scheduled by workflows that predate it.
   */
  | { readonly kind: 'not_committed'; readonly unsettledBecause?: UnsettledBecause }
  /** A read whose activity failed at the Temporal level (timeouts, exhausted retries) without a result. */
  | { readonly kind: 'unavailable'; readonly failureType: string }
  /** The outcome is unknown and another workflow's reconciliation owns the key. */
  | { readonly kind: 'outcome_unknown'; readonly reconciledBy: string }
  /** A human settled an escalated reconciliation. */
  | { readonly kind: 'human'; readonly resolution: HumanResolution }
  /** The workflow already made `limit` calls of this tool: this one is refused before it runs. */
  | { readonly kind: 'call_limit'; readonly limit: number };

/** Input of {@link createSettleCall}. */
export interface SettleCallInput {
  readonly identity: CallIdentity;
  readonly settlement: Settlement;
}

/**
 * Builds, records and returns the result of a call that ends without running its handler now: the same two
 * projections as any other call, so hosts handle one kind of result. A human resolution also settles the
 * reconciliation record (which releases the key when the write did not happen).
 */
export function createSettleCall(runtime: ToolRuntime): (input: SettleCallInput) => Promise<ToolCallResult> {
  return async ({ identity, settlement }) => {
    const tool = runtime.registry.get(identity.tool);
    const ctx = activityExecutionContext(identity, settlement.kind === 'human' ? await humanAuditAttempt(runtime, identity) : AUDIT_ATTEMPT_BASE.settled, hostKeysOf(runtime));
    const execution = settledExecution(tool, ctx, identity.args, settlement);
    if (settlement.kind === 'human') {
      const { resolution } = settlement;
      await runtime.store.settleReconciliation({
        idempotencyKey: identity.idempotencyKey,
        outcome: resolution.outcome,
        via: 'human',
        receiptExternalId: resolution.externalId,
        resolvedBy: resolution.resolvedBy,
        note: resolution.note,
      });
    }
    return recordOnce(runtime.store, execution);
  };
}

/**
 * A human may settle more than one round of a key (a late commit escalates a call a human had already settled), and
 * each resolution is its own audited attempt: numbered by the round it settles.
 */
async function humanAuditAttempt(runtime: ToolRuntime, identity: CallIdentity): Promise<number> {
  const round = (await runtime.store.getReconciliation(identity.idempotencyKey))?.round ?? 1;
  return AUDIT_ATTEMPT_BASE.human + Math.min(round - 1, 99);
}

function settledExecution(tool: AnyToolDefinition, ctx: ExecutionContext, args: unknown, settlement: Settlement): ToolExecution {
  switch (settlement.kind) {
    case 'approval_rejected':
      return failedExecution(tool, ctx, catalogFailure('APPROVAL_REJECTED', 'approval', { approver: settlement.approver, reason: settlement.reason }), args);
    case 'approval_expired':
      return failedExecution(tool, ctx, catalogFailure('APPROVAL_INVALID', 'approval', { expired: true, invalid_decisions: settlement.invalidDecisions }), args);
    case 'call_limit':
      return failedExecution(tool, ctx, catalogFailure('CALL_LIMIT_EXCEEDED', 'authorization', { limit: settlement.limit }), args);
    case 'unavailable':
      return failedExecution(tool, ctx, catalogFailure('UPSTREAM_UNAVAILABLE', 'execution', { temporal_failure: settlement.failureType }), args);
    case 'outcome_unknown':
      return withOutcomeUnknown(tool, ctx, args, { reconciled_by: settlement.reconciledBy });
    case 'not_committed':
      return notCommitted(tool, ctx, args, { by: 'reconciliation', unsettledBecause: settlement.unsettledBecause ?? 'unknown' });
    case 'human': {
      const { resolution } = settlement;
      if (resolution.outcome === 'not_committed') {
        return notCommitted(tool, ctx, args, { by: 'human', resolvedBy: resolution.resolvedBy, note: resolution.note });
      }
      return humanCommitted(tool, ctx, args, resolution);
    }
  }
}
