import { catalogFailure } from '../src/contract/call-failure.js';
import { withDecision, type DecisionRecord } from '../src/contract/decision-record.js';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import { failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import {
  humanCommitted,
  notCommitted,
  withOutcomeUnknown,
  type HumanResolution,
  type UnsettledBecause,
} from '../src/contract/settled-results.js';
import { ToolError } from '../src/contract/tool-error.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import { ToolRegistry } from '../src/contract/tool-registry.js';
import { activityExecutionContext, activityWorkflow } from './call-context.js';
import { AUDIT_ATTEMPT_BASE } from './audit-attempt.js';
import { recordRefusal } from './refused-call.js';
import { callOwnership, settledNotCommittedByReceipt, type CallSite } from './call-ownership.js';
import { confirmDecision } from './confirm-decision.js';
import { reportReconciliationStep } from './call-report.js';
import type { CallSpanRef } from './call-telemetry.js';
import { recordOnce } from './record-execution.js';
import { intendedRequest } from './request-digest.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import type { ToolCallResult } from './tool-activity.js';
import type { VerifiedDecision } from './verify-decision.js';

/** How a call ends without its handler running (now). */
export type Settlement =
  /** The approver rejected the exact request. */
  | { readonly kind: 'approval_rejected'; readonly rejection: VerifiedDecision }
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
  /**
   * A human settled an escalated reconciliation: the resolution is the verified decision. `settles` is the span of
   * the call it settles, when the call's result carried one (telemetry links to it).
   */
  | { readonly kind: 'human'; readonly resolution: VerifiedDecision; readonly settles?: CallSpanRef }
  /** The workflow already made `limit` calls of this tool: this one is refused before it runs. */
  | { readonly kind: 'call_limit'; readonly limit: number }
  /** No tool of this name (or none the call may use): refused before anything ran. */
  | { readonly kind: 'unknown_tool' }
  /** Arguments workflow code could not take (not a JSON object, or no business key in them): refused before anything ran. */
  | { readonly kind: 'invalid_arguments'; readonly reason: string }
  /** A result of this run failed a business invariant (call `haltedBy`): its writes are refused until a person looks. */
  | { readonly kind: 'writes_halted'; readonly haltedBy: string };

/**
 * Where each settlement is made: in the workflow the call belongs to (`callTool`), or in the reconciliation of its
 * key. The settle activity refuses one made anywhere else.
 */
const SETTLED_IN: Readonly<Record<Settlement['kind'], readonly CallSite[]>> = {
  approval_rejected: ['own_workflow'],
  approval_expired: ['own_workflow'],
  call_limit: ['own_workflow'],
  unknown_tool: ['own_workflow'],
  invalid_arguments: ['own_workflow'],
  writes_halted: ['own_workflow'],
  outcome_unknown: ['own_workflow'],
  // A read's failed dispatch, or the reconciliation's re-dispatch of a write.
  unavailable: ['own_workflow', 'reconciliation'],
  not_committed: ['reconciliation'],
  human: ['reconciliation'],
};

/** Input of {@link createSettleCall}. */
export interface SettleCallInput {
  readonly identity: CallIdentity;
  readonly settlement: Settlement;
}

/**
 * Builds, records and returns the result of a call that ends without running its handler now: the same two
 * projections as any other call, so hosts handle one kind of result. A rejection and a human resolution are checked
 * again here (see `confirmDecision`) and named in the audit. A human resolution also settles the reconciliation
 * record (which releases the key when the write did not happen), in the store step that records its result; one that
 * does not verify settles nothing.
 *
 * The call is bound to the workflow the activity runs for (see `callOwnership` and `SETTLED_IN`): a settlement for
 * another workflow's call, or under a key its request does not own, is refused (`PERMISSION_DENIED`) before anything
 * is recorded — it could release a key whose write is still in flight. "Not committed" is recorded only once the
 * key's reconciliation settled so by receipt.
 */
export function createSettleCall(runtime: ToolRuntime): (input: SettleCallInput) => Promise<ToolCallResult> {
  return async ({ identity, settlement }) => {
    if (settlement.kind === 'unknown_tool') return refuseUnknownTool(runtime, identity);
    const tool = runtime.registry.get(identity.tool);
    // `?? []`: the kind comes from activity input, which may name none.
    if (callOwnership(tool, identity, SETTLED_IN[settlement.kind] ?? []) === null)
      throw new ToolError('PERMISSION_DENIED', { reason: 'foreign_call', settlement: settlement.kind });
    if (
      settlement.kind === 'not_committed' &&
      !(await settledNotCommittedByReceipt(runtime.store, identity.idempotencyKey))
    ) {
      throw new ToolError('PERMISSION_DENIED', { reason: 'not_reconciled', settlement: settlement.kind });
    }
    const ctx = activityExecutionContext(
      identity,
      settlement.kind === 'human' ? await humanAuditAttempt(runtime, identity) : AUDIT_ATTEMPT_BASE.settled,
      hostKeysOf(runtime),
    );
    if (settlement.kind === 'human') {
      const startedAtMs = Date.now();
      const resolution = await confirmedResolution(runtime, identity, ctx, settlement.resolution);
      const result = await recordOnce(
        runtime.store,
        withDecision(humanExecution(tool, ctx, identity.args, resolution), resolution.decision),
        {
          idempotencyKey: identity.idempotencyKey,
          outcome: resolution.outcome,
          via: 'human',
          receiptExternalId: resolution.externalId,
          resolvedBy: resolution.resolvedBy,
          note: resolution.note,
        },
      );
      const step = {
        kind: 'resolution',
        tool: identity.tool,
        callId: identity.callId,
        finding: resolution.outcome,
        attempt: null,
      } as const;
      reportReconciliationStep(runtime.telemetry ?? null, {
        ...step,
        settles: settlement.settles ?? null,
        startedAtMs,
        endedAtMs: Date.now(),
      });
      return result;
    }
    if (settlement.kind === 'approval_rejected')
      return recordOnce(runtime.store, await rejectedExecution(runtime, tool, identity, ctx, settlement.rejection));
    if (settlement.kind === 'invalid_arguments')
      return recordRefusal(
        runtime,
        failedExecution(
          tool,
          ctx,
          catalogFailure('INVALID_ARGUMENTS', 'input', { reason: settlement.reason.slice(0, 500) }),
          identity.args,
        ),
        ctx.temporal?.workflowId ?? 'none',
      );
    return recordOnce(runtime.store, settledExecution(tool, ctx, identity.args, settlement));
  };
}

/**
 * An unknown tool's refusal, audited. There is no tool to derive the call's identity by: it must be the unkeyed one
 * of a call of the workflow the activity runs for, so nothing is recorded under another call's key.
 */
async function refuseUnknownTool(runtime: ToolRuntime, identity: CallIdentity): Promise<ToolCallResult> {
  const { workflowId } = activityWorkflow();
  const operationId = `${workflowId}:${identity.callId}`;
  if (identity.operationId !== operationId || identity.idempotencyKey !== operationId)
    throw new ToolError('PERMISSION_DENIED', { reason: 'foreign_call', settlement: 'unknown_tool' });
  const ctx = activityExecutionContext(identity, AUDIT_ATTEMPT_BASE.settled, hostKeysOf(runtime));
  // Looked up in an empty registry, so a registered tool the call may not use is exactly as unknown as any other name.
  return recordRefusal(runtime, await new ToolRegistry().execute(identity.tool, identity.args, ctx), workflowId);
}

/**
 * A human may settle more than one round of a key (a late commit escalates a call a human had already settled), and
 * each resolution is its own audited attempt: numbered by the round it settles.
 */
async function humanAuditAttempt(runtime: ToolRuntime, identity: CallIdentity): Promise<number> {
  const round = (await runtime.store.getReconciliation(identity.idempotencyKey))?.round ?? 1;
  return AUDIT_ATTEMPT_BASE.human + Math.min(round - 1, 99);
}

/**
 * A rejection stops the call whatever its proof (stopping is always safe); the audit names the rejecter only when
 * the rejection verifies again, and otherwise says why it did not.
 */
async function rejectedExecution(
  runtime: ToolRuntime,
  tool: AnyToolImplementation,
  identity: CallIdentity,
  ctx: ExecutionContext,
  rejection: VerifiedDecision,
): Promise<ToolExecution> {
  const { requestSha256 } = intendedRequest(tool, identity.principal, identity.args);
  const check = await confirmDecision(
    runtime.decisions,
    rejection,
    {
      kind: 'approval',
      ...runOf(ctx),
      callId: identity.callId,
      requestSha256,
      principalSubject: identity.principal.subject,
    },
    { kind: 'approval', decision: 'reject', requestSha256 },
  );
  const detail = check.ok
    ? { rejected_by: check.record.decided_by, reason: check.record.note }
    : { decision_unverified: check.reason };
  const execution = failedExecution(tool, ctx, catalogFailure('APPROVAL_REJECTED', 'approval', detail), identity.args);
  return check.ok ? withDecision(execution, check.record) : execution;
}

/** The resolution as the settle activity confirmed it; one that does not verify is refused (nothing is settled). */
async function confirmedResolution(
  runtime: ToolRuntime,
  identity: CallIdentity,
  ctx: ExecutionContext,
  resolution: VerifiedDecision,
): Promise<HumanResolution & { readonly decision: DecisionRecord }> {
  const { decision } = resolution;
  const outcome = decision.decision === 'committed' ? 'committed' : 'not_committed';
  const check = await confirmDecision(
    runtime.decisions,
    resolution,
    { kind: 'resolution', ...runOf(ctx), idempotencyKey: identity.idempotencyKey },
    { kind: 'resolution', decision: outcome, externalId: decision.external_id },
  );
  if (!check.ok || check.record.kind !== 'resolution')
    throw new ToolError('APPROVAL_INVALID', { reason: check.ok ? 'not_a_resolution' : check.reason });
  const { record } = check;
  return {
    outcome,
    externalId: record.external_id,
    resolvedBy: record.decided_by,
    note: record.note,
    decision: record,
  };
}

function runOf(ctx: ExecutionContext): { readonly workflowId: string; readonly runId: string } {
  return { workflowId: ctx.temporal?.workflowId ?? 'none', runId: ctx.temporal?.runId ?? 'none' };
}

function humanExecution(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  args: unknown,
  resolution: HumanResolution,
): ToolExecution {
  if (resolution.outcome === 'not_committed') {
    return notCommitted(tool, ctx, args, { by: 'human', resolvedBy: resolution.resolvedBy, note: resolution.note });
  }
  return humanCommitted(tool, ctx, args, resolution);
}

function settledExecution(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  args: unknown,
  settlement: Exclude<Settlement, { kind: 'human' | 'approval_rejected' | 'unknown_tool' | 'invalid_arguments' }>,
): ToolExecution {
  switch (settlement.kind) {
    case 'approval_expired':
      return failedExecution(
        tool,
        ctx,
        catalogFailure('APPROVAL_INVALID', 'approval', {
          expired: true,
          invalid_decisions: settlement.invalidDecisions,
        }),
        args,
      );
    case 'call_limit':
      return failedExecution(
        tool,
        ctx,
        catalogFailure('CALL_LIMIT_EXCEEDED', 'authorization', { limit: settlement.limit }),
        args,
      );
    case 'writes_halted':
      return failedExecution(
        tool,
        ctx,
        catalogFailure('WRITES_HALTED', 'semantics', { halted_by: settlement.haltedBy }),
        args,
      );
    case 'unavailable':
      return failedExecution(
        tool,
        ctx,
        catalogFailure('UPSTREAM_UNAVAILABLE', 'execution', { temporal_failure: settlement.failureType }),
        args,
      );
    case 'outcome_unknown':
      return withOutcomeUnknown(tool, ctx, args, { reconciled_by: settlement.reconciledBy });
    case 'not_committed':
      return notCommitted(tool, ctx, args, {
        by: 'reconciliation',
        unsettledBecause: settlement.unsettledBecause ?? 'unknown',
      });
  }
}
