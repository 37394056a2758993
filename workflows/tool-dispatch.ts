import type { Priority } from '@temporalio/common';
import { ActivityFailure, isCancellation, scheduleActivity, TimeoutFailure, type RetryPolicy } from '@temporalio/workflow';
import type { CallIdentity } from '../activities/call-identity.js';
import type { DispatchKind, ToolActivityInput, ToolCallResult } from '../activities/tool-activity.js';
import type { VerifiedDecision } from '../activities/verify-decision.js';
import { ERROR_CATALOG, isCatalogCode, nonRetryableCodes } from '../src/contract/error-catalog.js';
import type { UnsettledBecause } from '../src/contract/settled-results.js';
import { isPreparationNeeded, TOOL_ACTIVITY_INPUT_KIND, type PreparationNeeded } from '../src/wire/message-kinds.js';
import { carriedResult, failureType } from './activity-failure.js';
import { PACKAGE_CALL_DEFAULTS } from './call-policy.js';
import { callPriority } from './call-priority.js';
import { settle } from './settle.js';

/** How a tool activity is scheduled. */
export interface DispatchOptions {
  /** Time one attempt may take (default {@link PACKAGE_CALL_DEFAULTS}). */
  readonly timeoutMs?: number;
  /** Longest silence between heartbeats of a running attempt; none when absent (see `dispatchOptionsFor`). */
  readonly heartbeatTimeoutMs?: number;
  /** Attempts of a read whose failure the catalog calls retryable (default {@link PACKAGE_CALL_DEFAULTS}). */
  readonly readAttempts?: number;
  /** Task queue of the tool activities (default: the workflow's). */
  readonly taskQueue?: string;
  /** The approval of a tool that requires one (the tool activity refuses to run without it). */
  readonly approval?: VerifiedDecision;
  /** Task-queue priority; its fields win over the tenant reference as fairness key (see `callPriority`). */
  readonly priority?: Priority;
  /** The call is a known read, dispatched unprepared (the worker checks the tool still is a plain read). */
  readonly knownRead?: true;
}

/** The SDK's failure type for an activity type no worker function serves (retryable by default: here it is not). */
const NOT_SERVED_FAILURE = 'NotFoundError';

/**
 * Runs a read's tool activity, retried only for catalogue-retryable codes. Never throws for what the tool does: a
 * failure that carries a model result returns it, any other failure settles the call as `UPSTREAM_UNAVAILABLE`.
 */
export async function dispatchRead(identity: CallIdentity, summary: string, options: DispatchOptions): Promise<ToolCallResult> {
  try {
    return await scheduleTool<ToolCallResult>(identity, 'dispatch', summary, options, readRetry(options));
  } catch (error) {
    return readFailed(identity, error);
  }
}

/** What dispatching an expected read established: its result, or that the call must be prepared first. */
export type ExpectedReadDispatch =
  /** `served`: a worker that knows the tool answered (with its result), so the tool is a plain read there. */
  | { readonly kind: 'ran'; readonly result: ToolCallResult; readonly served: boolean }
  | { readonly kind: 'prepare_first' };

/**
 * Runs a read whose caller expects a plain read, unprepared (see `CallToolOptions.expectPlainRead`). The worker runs
 * it only when the tool is one; when it answers that the call must be prepared, or no worker function serves the tool
 * (an unknown tool is refused by preparation, with its audit), nothing ran and the caller prepares it.
 */
export async function dispatchExpectedRead(identity: CallIdentity, summary: string, options: DispatchOptions): Promise<ExpectedReadDispatch> {
  const retry = readRetry(options);
  try {
    const result = await scheduleTool<ToolCallResult | PreparationNeeded>(identity, 'dispatch', summary, { ...options, expectedRead: true }, { ...retry, nonRetryableErrorTypes: [...(retry.nonRetryableErrorTypes ?? []), NOT_SERVED_FAILURE] });
    return isPreparationNeeded(result) ? { kind: 'prepare_first' } : { kind: 'ran', result, served: true };
  } catch (error) {
    if (!isCancellation(error) && failureType(error) === NOT_SERVED_FAILURE) return { kind: 'prepare_first' };
    return { kind: 'ran', result: await readFailed(identity, error), served: false };
  }
}

/** A read is retried only for catalogue-retryable codes. */
function readRetry(options: DispatchOptions): RetryPolicy {
  return { maximumAttempts: options.readAttempts ?? PACKAGE_CALL_DEFAULTS.readAttempts, nonRetryableErrorTypes: nonRetryableCodes() };
}

/** A read's activity failed: the model result the failure carries, else the call settled as `UPSTREAM_UNAVAILABLE`. */
async function readFailed(identity: CallIdentity, error: unknown): Promise<ToolCallResult> {
  if (isCancellation(error)) throw error;
  const carried = carriedResult(error);
  if (carried !== null) return { modelResult: carried, auditRef: null };
  return settle(identity, { kind: 'unavailable', failureType: failureType(error) });
}

/** What one dispatch of a write established: a result, or an unknown outcome that needs reconciling. */
export type WriteDispatch =
  | { readonly kind: 'settled'; readonly result: ToolCallResult }
  /** `result` is the activity's own `unknown` result, when it returned one (rather than timing out). */
  | { readonly kind: 'unknown'; readonly auditId: string | null; readonly result: ToolCallResult | null; readonly because: UnsettledBecause };

/**
 * Dispatches a write exactly once (`maximumAttempts: 1`: the default policy would retry forever). A timeout, a
 * result whose outcome is `unknown` (including an accepted job, which has not finished), or any failure the catalog
 * does not call "not started" leaves the outcome unknown.
 */
export async function dispatchWriteOnce(identity: CallIdentity, dispatch: DispatchKind, summary: string, options: DispatchOptions): Promise<WriteDispatch> {
  try {
    const result = await scheduleTool<ToolCallResult>(identity, dispatch, summary, options, { maximumAttempts: 1 });
    if (result.modelResult.execution.outcome === 'unknown') {
      return { kind: 'unknown', auditId: result.auditRef?.audit_id ?? null, result, because: result.modelResult.status === 'accepted' ? 'accepted' : 'error' };
    }
    return { kind: 'settled', result };
  } catch (error) {
    // A cancelled workflow stops here; the caller starts the reconciliation of a write in flight at that moment
    // (its key stays claimed until that settles it, so a later call with the same key is never run again).
    if (isCancellation(error)) throw error;
    if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) return { kind: 'unknown', auditId: null, result: null, because: 'timeout' };
    const carried = carriedResult(error);
    if (carried !== null && carried.execution.outcome === 'not_started') return { kind: 'settled', result: { modelResult: carried, auditRef: null } };
    const type = failureType(error);
    if (isCatalogCode(type) && ERROR_CATALOG[type].outcome === 'not_started' && carried === null) {
      return { kind: 'settled', result: await settle(identity, { kind: 'unavailable', failureType: type }) };
    }
    return { kind: 'unknown', auditId: null, result: null, because: carried === null ? 'lost' : 'error' };
  }
}

/** The tool's activity (activity type = tool name), given the call's identity as a tagged, small input. */
function scheduleTool<R>(identity: CallIdentity, dispatch: DispatchKind, summary: string, options: DispatchOptions & { readonly expectedRead?: true }, retry: RetryPolicy): Promise<R> {
  const input: ToolActivityInput = {
    kind: TOOL_ACTIVITY_INPUT_KIND,
    args: identity.args,
    callId: identity.callId,
    operationId: identity.operationId,
    idempotencyKey: identity.idempotencyKey,
    principal: identity.principal,
    provider: identity.provider,
    dispatch,
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    ...(options.knownRead === undefined ? {} : { knownRead: options.knownRead }),
    ...(options.expectedRead === undefined ? {} : { expectedRead: options.expectedRead }),
  };
  const priority = callPriority(identity.principal, options.priority);
  return scheduleActivity<R>(identity.tool, [input], {
    ...(priority === undefined ? {} : { priority }),
    startToCloseTimeout: options.timeoutMs ?? PACKAGE_CALL_DEFAULTS.timeoutMs,
    ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeout: options.heartbeatTimeoutMs }),
    retry,
    summary,
    ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
  });
}
