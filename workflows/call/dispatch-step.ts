// The tool's activity (activity type = tool name) for a call — a read retried by the catalog's rules, a write sent
// exactly once (shared with the reconciliation child, whose one safe re-dispatch goes the same way) — and, for a write
// whose outcome it left unknown, the reconciliation: a child workflow, whose id derives from the call's idempotency
// key, asks the authoritative system by key and settles it (or escalates to a person). Never sent again blindly.
import { WorkflowExecutionAlreadyStartedError, type Priority } from '@temporalio/common';
import {
  ActivityFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  scheduleActivity,
  startChild,
  TimeoutFailure,
  workflowInfo,
  type ChildWorkflowOptions,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { DispatchKind, ToolActivityInput, ToolCallResult } from '../../activities/tool-activity.js';
import type { VerifiedDecision } from '../../activities/verify-decision.js';
import type { CallIdentity } from '../../src/contract/call-identity.js';
import { ERROR_CATALOG, isCatalogCode, nonRetryableCodes } from '../../src/contract/error-catalog.js';
import type { UnsettledBecause } from '../../src/contract/settled-results.js';
import { tenantRef } from '../../src/contract/tenant-ref.js';
import type { ToolFacts } from '../../src/contract/tool-facts.js';
import type { Principal } from '../../src/contract/tool-handler.js';
import type { ToolCallDefaults } from '../../src/contract/tool-spec.js';
import { reconcileWorkflowId } from '../../src/wire/ids.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../../src/wire/message-kinds.js';
import { RECONCILE_WORKFLOW_TYPE } from '../../src/wire/names.js';
import { IDEMPOTENCY_KEY_SA, RECONCILE_STATE_SA, type ReconcileState } from '../../src/wire/search-attributes.js';
import { DEFAULT_RECONCILE_POLICY, type ReconcileInput } from '../reconcile-policy.js';
import { carriedResult, failureType } from '../activity-failure.js';
import { settle } from '../settle.js';
import type { CallState, StepOutcome } from './pipeline.js';

/**
 * What a tool activity gets when neither the call nor the tool says: 30 s per attempt, 3 attempts for a read whose
 * failure is retryable, and a 10 s heartbeat timeout, so a workflow cancel reaches a running handler within seconds
 * (the SDK sends a heartbeat at most every 0.8 × this) and a dead worker's attempt is retried or reconciled after
 * 10 s instead of the whole attempt timeout.
 */
export const PACKAGE_CALL_DEFAULTS = Object.freeze({
  timeoutMs: 30_000,
  readAttempts: 3,
  heartbeatTimeoutMs: 10_000,
}) satisfies Required<ToolCallDefaults>;

/** How a tool activity is scheduled. */
export interface DispatchOptions extends ToolCallDefaults {
  /** Task queue of the tool activities (default: the workflow's). */
  readonly taskQueue?: string;
  /** Task-queue priority; its fields win over the tenant's fairness key (see {@link callPriority}). */
  readonly priority?: Priority;
}

/** A write whose outcome the dispatch left unknown: what its reconciliation starts from. */
export interface UnknownDispatch {
  /** Audit of the attempt, when one was recorded. */
  readonly auditId: string | null;
  /** The activity's own `unknown` result, when it returned one (rather than timing out). */
  readonly result: ToolCallResult | null;
  readonly because: UnsettledBecause;
}

/** The dispatch step: a read's result, a write's settled result, or a write left unknown for the reconcile step. */
export async function dispatchCall(state: CallState): Promise<StepOutcome> {
  const facts = state.facts as ToolFacts;
  const identity = state.identity as CallIdentity;
  const scheduled: ScheduledCall = {
    identity,
    revision: facts.revision,
    summary: state.summary ?? facts.name,
    options: dispatchOptionsFor(facts, state.options),
    ...(state.approval === undefined ? {} : { approval: state.approval }),
  };
  if (facts.effect === 'read') return { done: await dispatchRead(scheduled) };
  const written = await dispatchWriteOnce(scheduled, 'dispatch');
  return written.kind === 'settled' ? { done: written.result } : { next: { ...state, unknown: written.unknown } };
}

/** A call as its tool activity is scheduled. */
export interface ScheduledCall {
  readonly identity: CallIdentity;
  /** The tool's revision the call was decided by; a worker serving another refuses it. */
  readonly revision: string;
  readonly summary: string;
  readonly options: Required<ToolCallDefaults> & DispatchOptions;
  /** The approval of a tool that requires one (the tool activity refuses to run without it). */
  readonly approval?: VerifiedDecision;
}

/** Each field from the call's options, else the tool's defaults, else the package's. */
export function dispatchOptionsFor(
  facts: Pick<ToolFacts, 'callDefaults'>,
  options: DispatchOptions,
): Required<ToolCallDefaults> & DispatchOptions {
  const defaults = facts.callDefaults;
  return {
    ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
    ...(options.priority === undefined ? {} : { priority: options.priority }),
    timeoutMs: options.timeoutMs ?? defaults?.timeoutMs ?? PACKAGE_CALL_DEFAULTS.timeoutMs,
    readAttempts: options.readAttempts ?? defaults?.readAttempts ?? PACKAGE_CALL_DEFAULTS.readAttempts,
    heartbeatTimeoutMs:
      options.heartbeatTimeoutMs ?? defaults?.heartbeatTimeoutMs ?? PACKAGE_CALL_DEFAULTS.heartbeatTimeoutMs,
  };
}

/**
 * Runs a read's tool activity, retried only for catalogue-retryable codes. Never throws for what the tool does: a
 * failure that carries a model result returns it, any other failure settles the call as `UPSTREAM_UNAVAILABLE`.
 */
async function dispatchRead(call: ScheduledCall): Promise<ToolCallResult> {
  try {
    return await scheduleTool<ToolCallResult>(call, 'dispatch', {
      maximumAttempts: call.options.readAttempts,
      nonRetryableErrorTypes: nonRetryableCodes(),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const carried = carriedResult(error);
    if (carried !== null) return { modelResult: carried, auditRef: null };
    return settle(call.identity, { kind: 'unavailable', failureType: failureType(error) });
  }
}

/** What one dispatch of a write established: a result, or an unknown outcome that needs reconciling. */
export type WriteDispatch =
  | { readonly kind: 'settled'; readonly result: ToolCallResult }
  | { readonly kind: 'unknown'; readonly unknown: UnknownDispatch };

/**
 * Dispatches a write exactly once (`maximumAttempts: 1`: the default policy would retry forever). A timeout, a
 * result whose outcome is `unknown` (including an accepted job, which has not finished), or any failure the catalog
 * does not call "not started" leaves the outcome unknown. A cancel of the workflow is thrown on: the caller starts
 * the reconciliation of a write in flight at that moment.
 */
export async function dispatchWriteOnce(call: ScheduledCall, dispatch: DispatchKind): Promise<WriteDispatch> {
  const unknown = (
    auditId: string | null,
    result: ToolCallResult | null,
    because: UnsettledBecause,
  ): WriteDispatch => ({ kind: 'unknown', unknown: { auditId, result, because } });
  try {
    const result = await scheduleTool<ToolCallResult>(call, dispatch, { maximumAttempts: 1 });
    if (result.modelResult.execution.outcome === 'unknown')
      return unknown(
        result.auditRef?.audit_id ?? null,
        result,
        result.modelResult.status === 'accepted' ? 'accepted' : 'error',
      );
    return { kind: 'settled', result };
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure)
      return unknown(null, null, 'timeout');
    const carried = carriedResult(error);
    if (carried !== null && carried.execution.outcome === 'not_started')
      return { kind: 'settled', result: { modelResult: carried, auditRef: null } };
    const type = failureType(error);
    if (isCatalogCode(type) && ERROR_CATALOG[type].outcome === 'not_started' && carried === null) {
      return { kind: 'settled', result: await settle(call.identity, { kind: 'unavailable', failureType: type }) };
    }
    return unknown(null, null, carried === null ? 'lost' : 'error');
  }
}

/** The tool's activity, given the call's identity as a tagged, small input. */
function scheduleTool<R>(call: ScheduledCall, dispatch: DispatchKind, retry: RetryPolicy): Promise<R> {
  const { identity, options } = call;
  const input: ToolActivityInput = {
    kind: TOOL_ACTIVITY_INPUT_KIND,
    args: identity.args,
    callId: identity.callId,
    operationId: identity.operationId,
    idempotencyKey: identity.idempotencyKey,
    principal: identity.principal,
    provider: identity.provider,
    revision: call.revision,
    dispatch,
    ...(call.approval === undefined ? {} : { approval: call.approval }),
  };
  const priority = callPriority(identity.principal, options.priority);
  return scheduleActivity<R>(identity.tool, [input], {
    ...(priority === undefined ? {} : { priority }),
    startToCloseTimeout: options.timeoutMs,
    heartbeatTimeout: options.heartbeatTimeoutMs,
    retry,
    summary: call.summary,
    ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
  });
}

/**
 * The task-queue priority of a call's activities and of its reconciliation — every path that schedules work for a
 * call takes it from here: the principal's tenant reference (`tenantRef`, never the tenant's name: the key is stored
 * unencrypted in history and Temporal's OpenTelemetry workflow exporter copies it onto every span of the
 * reconciliation) as the fairness key, so on a server with fairness enabled one tenant's burst of tool calls cannot
 * starve the others on a shared task queue; `override` (the call's `priority` option) wins field by field.
 * `undefined` when nothing is set (no tenant, no override): the activity then inherits the workflow's priority.
 */
export function callPriority(principal: Principal, override: Priority | undefined): Priority | undefined {
  const fair = principal.tenant === '' ? {} : { fairnessKey: tenantRef(principal.tenant) };
  const priority = { ...fair, ...override };
  return Object.keys(priority).length === 0 ? undefined : priority;
}

/**
 * The reconcile step: the child's result. When another workflow's child already owns the key, this call's outcome is
 * unknown to this workflow — it says so (`OUTCOME_UNKNOWN`, recovery `query_status`) instead of failing or retrying.
 * A cancel of this run (a user gave up on the call) does not stop the child: the key would stay unknown and an
 * escalation waiting for a person would die with it. The run closes cancelled; the child goes on.
 */
export async function reconcileUnknownWrite(state: CallState): Promise<StepOutcome> {
  const unknown = state.unknown as UnknownDispatch;
  const identity = state.identity as CallIdentity;
  try {
    return {
      done: await executeChild<(input: ReconcileInput) => Promise<ToolCallResult>>(RECONCILE_WORKFLOW_TYPE, {
        ...reconcileChildOptions(state, unknown),
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      }),
    };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return {
      done:
        unknown.result ??
        (await settle(identity, {
          kind: 'outcome_unknown',
          reconciledBy: reconcileWorkflowId(identity.idempotencyKey),
        })),
    };
  }
}

/**
 * Starts the reconciliation of a write whose workflow was cancelled while it was scheduled or ran: it may have taken
 * effect, so it is reconciled like a lost attempt — never sent again, since whoever cancelled did not want it. Started
 * outside the cancelled scope (a cancelled scope can start nothing) and not waited for; when a reconciliation of the
 * key already runs (another workflow's), that one owns it.
 */
export async function reconcileCancelledWrite(state: CallState): Promise<void> {
  const options = reconcileChildOptions(state, { auditId: null, result: null, because: 'lost' }, { redispatch: false });
  await CancellationScope.nonCancellable(async () => {
    try {
      await startChild<(input: ReconcileInput) => Promise<ToolCallResult>>(RECONCILE_WORKFLOW_TYPE, options);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  });
}

/** How the reconciliation child of a write whose outcome is unknown is started. */
function reconcileChildOptions(
  state: CallState,
  unknown: UnknownDispatch,
  { redispatch } = { redispatch: true },
): ChildWorkflowOptions & { args: [ReconcileInput] } {
  const facts = state.facts as ToolFacts;
  const identity = state.identity as CallIdentity;
  const { options } = state;
  const priority = callPriority(identity.principal, options.priority);
  const job = unknown.result?.job;
  const input: ReconcileInput = {
    identity,
    revision: facts.revision,
    auditId: unknown.auditId,
    unsettledBecause: unknown.because,
    mayRedispatch: redispatch,
    ...(job === undefined ? {} : { job }),
    ...(unknown.result?.callSpan === undefined ? {} : { callSpan: unknown.result.callSpan }),
    toolTimeoutMs: dispatchOptionsFor(facts, options).timeoutMs,
    policy: { ...DEFAULT_RECONCILE_POLICY, ...options.reconcile },
    summary: state.summary ?? facts.name,
    ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
    // The one safe re-dispatch runs on the same approval (the tool activity checks it again).
    ...(state.approval === undefined ? {} : { approval: state.approval }),
  };
  return {
    ...(priority === undefined ? {} : { priority }),
    workflowId: reconcileWorkflowId(identity.idempotencyKey),
    args: [input],
    // The child must survive its parent: a person may settle the side effect after the agent is gone.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    staticSummary:
      job === undefined ? `Reconcile ${identity.tool} (unknown outcome)` : `Poll ${identity.tool} job (accepted)`,
    staticDetails: `Idempotency key \`${identity.idempotencyKey}\`; parent workflow \`${workflowInfo().workflowId}\`, call \`${identity.callId}\`.`,
    typedSearchAttributes: [
      { key: IDEMPOTENCY_KEY_SA, value: identity.idempotencyKey },
      { key: RECONCILE_STATE_SA, value: 'reconciling' satisfies ReconcileState },
    ],
  };
}
