import { ChildWorkflowCancellationType, executeChild, isCancellation, ParentClosePolicy, patched, scheduleLocalActivity, workflowInfo } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type Priority } from '@temporalio/common';
import type { CallIdentity } from '../activities/call-identity.js';
import type { PrepareCallInput, PreparedCall, ReadyCall } from '../activities/prepare-call.js';
import type { ToolCallResult } from '../activities/tool-activity.js';
import type { ProviderContext } from '../src/contract/bindings.js';
import type { Principal } from '../src/contract/define-tool.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { WORKFLOW_CALL_PROVIDER } from '../src/wire/call-providers.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import { CANCELLED_WRITE_RECONCILES_PATCH, KNOWN_READS_SKIP_PREPARE_PATCH, PREPARE_CALL_ACTIVITY, RECONCILE_OUTLIVES_CANCEL_PATCH, RECONCILE_WORKFLOW_TYPE } from '../src/wire/names.js';
import { IDEMPOTENCY_KEY_SA, RECONCILE_STATE_SA, type ReconcileState } from '../src/wire/search-attributes.js';
import { awaitApproval } from './approvals.js';
import { callsMade, countCall, withdrawCall } from './call-limits.js';
import { nextCallId } from './call-ids.js';
import { dispatchOptionsFor, PACKAGE_CALL_DEFAULTS } from './call-policy.js';
import { learnPreparation, learnServedRead, mayBePlainRead, plainReadFacts, unpreparedIdentity, unpreparedSummary, type CallToRun } from './known-reads.js';
import { callPriority } from './call-priority.js';
import { callSummary } from './call-summary.js';
import { startReconciliationAfterCancel, type ReconcileChildOptions } from './cancelled-write.js';
import { DEFAULT_RECONCILE_POLICY, type ReconcileInput, type ReconcilePolicy } from './reconcile-policy.js';
import { withRecoveryPaths, type RecoveryOptions } from './recovery-paths.js';
import { noteInvariantFailure, writesHaltedBy, type InvariantFailurePolicy } from './write-halt.js';
import { settle } from './settle.js';
import { dispatchExpectedRead, dispatchRead, dispatchWriteOnce, type DispatchOptions, type WriteDispatch } from './tool-dispatch.js';

export type { ToolCallResult } from '../activities/tool-activity.js';

/** Options of one tool call from workflow code. */
export interface CallToolOptions extends RecoveryOptions {
  /** The trusted caller (from the workflow's own input, never from model output). */
  readonly principal: Principal;
  /** Stable call id; deterministic `call-<n>` when omitted. Pass one when the workflow continues as new. */
  readonly callId?: string;
  /** The model call this answers (for the audit's call binding). */
  readonly provider?: ProviderContext;
  /** Time one attempt of the tool activity may take (default: the tool's `callDefaults`, else 30 s). A write that exceeds it is reconciled. */
  readonly timeoutMs?: number;
  /**
   * Longest silence between heartbeats of the running tool activity (default: the tool's `callDefaults`, else 10 s).
   * A workflow cancel reaches the handler's `ctx.signal` within about this long.
   */
  readonly heartbeatTimeoutMs?: number;
  /** Attempts for reads whose failure the catalog calls retryable (default: the tool's `callDefaults`, else 3). Writes always get one attempt. */
  readonly readAttempts?: number;
  /** How long an approval may take before the call fails closed (default 24 h). */
  readonly approvalTimeoutMs?: number;
  /** Backoff and deadline of reconciliation, should a write's outcome be unknown. */
  readonly reconcile?: Partial<ReconcilePolicy>;
  /** Task queue of the tool activities (default: the workflow's). */
  readonly taskQueue?: string;
  /**
   * The caller expects a plain read: a read with no approval, no business key, and no call limit or call defaults of
   * its own. The first such call of a tool in a run is then dispatched at once, without the `prepare` step (later
   * reads of a prepared plain read skip it anyway); the worker checks the tool and, when it is not one, runs nothing
   * and the call is prepared and run as usual (one activity more). Not used when the caller limits any tool
   * (`callLimits`: a limit counts a tool under its own name, which only a preparation tells for a name that may be an
   * alias), for a run already prepared otherwise, or for a name no tool can have (a `ttc.*` one: preparation refuses
   * it as `UNKNOWN_TOOL`). Workers must be of a version that knows expected reads.
   * Setting it changes the commands a run issues (no `prepare` marker): like any such change to workflow code, set it
   * only where no run started without it is still open, or behind your own `patched()`.
   */
  readonly expectPlainRead?: boolean;
  /** When given, only these tools may run; any other name is refused as `UNKNOWN_TOOL` (registered or not). */
  readonly allowedTools?: readonly string[];
  /**
   * Most calls of each named tool this workflow may make (the lower of this and the tool's own `callLimit` applies);
   * a call past it is refused as `CALL_LIMIT_EXCEEDED` without running. A tool's calls are counted under its own name,
   * whatever name (an alias) each is made by. Counted per workflow run: a workflow that
   * continues as new carries `toolCallCounts()` over with `resumeToolCallCounts` (the agent loop does).
   */
  readonly callLimits?: Readonly<Record<string, number>>;
  /**
   * Task-queue priority of the call's tool activities and reconciliation. By default the principal's tenant reference (a
   * digest, never the tenant's name) is the fairness key (see `callPriority`); fields given here win (a `priorityKey`, a `fairnessWeight`, another key).
   */
  readonly priority?: Priority;
  /**
   * What the run's later writes do once a result of the run failed a business invariant (`INVARIANT_VIOLATION`):
   * `halt_writes` (default; seed 004) refuses them as `WRITES_HALTED` until a person looks, `continue` runs them.
   */
  readonly onInvariantFailure?: InvariantFailurePolicy;
}

/** Per-call extras of {@link prepareCall}, for calls that come from a model turn. */
export interface PrepareCallExtras {
  /** Why the model's arguments are not a JSON object: the call is refused as `INVALID_ARGUMENTS`, never run. */
  readonly malformedArguments?: string;
}

/** Provider context for calls made by workflow code rather than on behalf of a model response. */
export const WORKFLOW_PROVIDER: ProviderContext = Object.freeze({
  provider: WORKFLOW_CALL_PROVIDER.provider,
  apiFamily: WORKFLOW_CALL_PROVIDER.apiFamily,
  responseId: null,
  providerCallId: null,
  adapterRevision: WORKFLOW_CALL_PROVIDER.adapterRevision,
});

/**
 * Runs one tool call through the contract and returns its model result and audit reference. Never throws for
 * anything the tool or its arguments do: unknown tools, invalid arguments, refused approvals and failures are
 * catalogued results. A write whose outcome is unknown is never dispatched again blindly: a child workflow
 * reconciles it by idempotency key, and the result says how it was settled. Opt-in recovery paths (a re-query,
 * fallback tools; see {@link RecoveryOptions}) may replace the result; the calls they replaced are listed in it.
 */
export async function callTool(name: string, args: unknown, options: CallToolOptions): Promise<ToolCallResult> {
  const callId = options.callId ?? nextCallId();
  const run = async (tool: string, id: string) => runPrepared(await prepareCall(tool, args, { ...options, callId: id }), options);
  return withRecoveryPaths(name, callId, await run(name, callId), options, run);
}

/**
 * Step one of a call: the worker validates it and fixes its identity (recorded in history) — except a plain read of a
 * tool this run already prepared once, which workflow code dispatches as it learned then (see `KnownReadCall`), and a
 * read its caller expects to be plain, dispatched at once for the worker to check (see `ExpectedReadCall`).
 */
export async function prepareCall(name: string, args: unknown, options: CallToolOptions, extras: PrepareCallExtras = {}): Promise<CallToRun> {
  const callId = options.callId ?? nextCallId();
  const call = { tool: name, args, callId, principal: options.principal, provider: options.provider ?? WORKFLOW_PROVIDER };
  const unprepared = extras.malformedArguments === undefined && (options.allowedTools?.includes(name) ?? true);
  const known = unprepared ? plainReadFacts(name) : undefined;
  // A tool learned from an expected read needs no patch: no run recorded before known reads made expected reads.
  if (known !== undefined && (known.fromExpectedRead === true || patched(KNOWN_READS_SKIP_PREPARE_PATCH))) {
    const { callLimit, callDefaults, canonicalTool } = known;
    return {
      kind: 'known_read',
      identity: unpreparedIdentity(call, workflowInfo().workflowId),
      ...(callLimit === undefined ? {} : { callLimit }),
      ...(callDefaults === undefined ? {} : { callDefaults }),
      ...(canonicalTool === undefined ? {} : { canonicalTool }),
    };
  }
  // Only when the caller limits no tool: an expected read is admitted before the worker says whether the tool has a
  // limit of its own (it has none when the worker runs it) or is an alias of a tool the caller limits by its own name,
  // so no limit applies to it. No patch: the caller's own option chooses this branch, so a run takes it only on code
  // that sets it (see `expectPlainRead`).
  const expected = unprepared && known === undefined && options.expectPlainRead === true && options.callLimits === undefined && mayBePlainRead(name);
  if (expected) return { kind: 'expected_read', identity: unpreparedIdentity(call, workflowInfo().workflowId) };
  return prepareInWorker(preparationOf(call, options, extras));
}

/** The `prepare` input of a call. Optional fields are added only when set, so an ordinary call's input is unchanged. */
function preparationOf(call: Omit<CallIdentity, 'operationId' | 'idempotencyKey'>, options: CallToolOptions, extras: PrepareCallExtras = {}): PrepareCallInput {
  const { tool, args, callId, principal, provider } = call;
  return {
    tool,
    args,
    callId,
    principal,
    provider,
    ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
    ...(extras.malformedArguments === undefined ? {} : { malformedArguments: extras.malformedArguments }),
  };
}

/** The `prepare` local activity; what it says of the tool is remembered for the run's later calls of it. */
async function prepareInWorker(input: PrepareCallInput): Promise<PreparedCall> {
  const prepared = await scheduleLocalActivity<PreparedCall>(PREPARE_CALL_ACTIVITY, [input], {
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 5, nonRetryableErrorTypes: nonRetryableCodes() },
  });
  learnPreparation(input.tool, prepared);
  return prepared;
}

/**
 * How a write found only while running a call (an expected read its worker sent back for preparation) runs: a batch
 * queues it behind its own writes, which run one at a time (see `callTools`).
 */
export type WriteLane = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * Step two: approval when required, then the tool activity, then reconciliation when a write's fate is unknown. A
 * write of a run whose writes an invariant failure halted is refused first (see `write-halt.ts`).
 */
export async function runPrepared(prepared: CallToRun, options: CallToolOptions, writeLane?: WriteLane): Promise<ToolCallResult> {
  const result = await runPreparedCall(prepared, options, writeLane);
  if (prepared.kind !== 'refused') noteInvariantFailure(result, prepared.identity.callId);
  return result;
}

async function runPreparedCall(prepared: CallToRun, options: CallToolOptions, writeLane?: WriteLane): Promise<ToolCallResult> {
  if (prepared.kind === 'refused') return prepared.result;
  const haltedBy = prepared.kind === 'ready' && prepared.effect !== 'read' && options.onInvariantFailure !== 'continue' ? writesHaltedBy() : null;
  if (haltedBy !== null) return settle(prepared.identity, { kind: 'writes_halted', haltedBy });
  // Every name of a tool counts as the tool's own name (an alias must not make a second counter). An expected read's
  // tool has no limit of its own when it runs (the worker checks), and the caller limits nothing then.
  const called = prepared.identity.tool;
  const counted = prepared.kind === 'expected_read' ? called : (prepared.canonicalTool ?? called);
  const limit = lowerLimit(prepared.kind === 'expected_read' ? undefined : prepared.callLimit, options.callLimits?.[counted], options.callLimits?.[called]);
  // Counted before any approval is asked for: a call past its limit must not even wait for a person.
  if (limit !== undefined && callsMade(counted) >= limit) return settle(prepared.identity, { kind: 'call_limit', limit });
  countCall(counted);
  if (prepared.kind === 'known_read') return dispatchRead(prepared.identity, unpreparedSummary(prepared.identity), { ...options, ...dispatchOptionsFor(prepared.callDefaults, options), knownRead: true });
  if (prepared.kind === 'expected_read') return runExpectedRead(prepared.identity, options, writeLane);
  let approved: CallToolOptions & DispatchOptions = options;
  if (prepared.requiresApproval) {
    const outcome = await awaitApproval(prepared, options.approvalTimeoutMs ?? 24 * 3600_000);
    if (outcome.kind === 'rejected') return settle(prepared.identity, { kind: 'approval_rejected', rejection: outcome.verified });
    if (outcome.kind === 'expired') return settle(prepared.identity, { kind: 'approval_expired', invalidDecisions: outcome.invalidDecisions });
    approved = { ...options, approval: outcome.verified };
  }
  const dispatch = { ...approved, ...dispatchOptionsFor(prepared.callDefaults, approved) };
  if (prepared.effect === 'read') return dispatchRead(prepared.identity, callSummary(prepared), dispatch);
  return dispatchWrite(prepared, dispatch);
}

/** An expected read: run by the worker when its tool is a plain read, else withdrawn, prepared and run as usual. */
async function runExpectedRead(identity: CallIdentity, options: CallToolOptions, writeLane: WriteLane | undefined): Promise<ToolCallResult> {
  const dispatched = await dispatchExpectedRead(identity, unpreparedSummary(identity), dispatchOptionsFor(undefined, options));
  if (dispatched.kind === 'ran') {
    if (dispatched.served) learnServedRead(identity.tool);
    return dispatched.result;
  }
  withdrawCall(identity.tool);
  const prepared = await prepareInWorker(preparationOf(identity, options));
  const run = () => runPrepared(prepared, options);
  return prepared.kind === 'ready' && prepared.effect !== 'read' && writeLane !== undefined ? writeLane(run) : run();
}

function lowerLimit(...limits: readonly (number | undefined)[]): number | undefined {
  const set = limits.filter((limit): limit is number => limit !== undefined);
  return set.length === 0 ? undefined : Math.min(...set);
}

async function dispatchWrite(prepared: ReadyCall, options: CallToolOptions & DispatchOptions): Promise<ToolCallResult> {
  let result: WriteDispatch;
  try {
    result = await dispatchWriteOnce(prepared.identity, 'dispatch', callSummary(prepared), options);
  } catch (error) {
    // Cancelled while the write was scheduled or running: it may have taken effect, so it is reconciled like a lost
    // attempt — never sent again, since whoever cancelled did not want it (no safe retry).
    if (isCancellation(error) && patched(CANCELLED_WRITE_RECONCILES_PATCH)) {
      await startReconciliationAfterCancel(reconcileChildOptions({ ...prepared, safeRetry: false }, { kind: 'unknown', auditId: null, result: null, because: 'lost' }, options));
    }
    throw error;
  }
  if (result.kind === 'settled') return result.result;
  try {
    const childOptions = reconcileChildOptions(prepared, result, options);
    // A cancel of this run (a user gave up on the call) must not stop the reconciliation: the key would stay
    // unknown and an escalation waiting for a person would die with it. The run closes cancelled; the child goes on.
    const outlivesCancel = patched(RECONCILE_OUTLIVES_CANCEL_PATCH) ? { cancellationType: ChildWorkflowCancellationType.ABANDON } : {};
    return await executeChild<(input: ReconcileInput) => Promise<ToolCallResult>>(RECONCILE_WORKFLOW_TYPE, { ...childOptions, ...outlivesCancel });
  } catch (error) {
    // One key has one reconciliation: when another workflow's child already owns it, this call's outcome is
    // unknown to this workflow — it says so (OUTCOME_UNKNOWN, recovery query_status) instead of failing or retrying.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return result.result ?? settle(prepared.identity, { kind: 'outcome_unknown', reconciledBy: reconcileWorkflowId(prepared.identity.idempotencyKey) });
  }
}

/** How the reconciliation child of a write whose outcome is unknown is started. */
function reconcileChildOptions(prepared: ReadyCall, unknown: Extract<WriteDispatch, { kind: 'unknown' }>, options: CallToolOptions & DispatchOptions): ReconcileChildOptions {
  const priority = callPriority(prepared.identity.principal, options.priority);
  return {
    ...(priority === undefined ? {} : { priority }),
    workflowId: reconcileWorkflowId(prepared.identity.idempotencyKey),
    args: [
      {
        identity: prepared.identity,
        canReconcile: prepared.canReconcile,
        safeRetry: prepared.safeRetry,
        auditId: unknown.auditId,
        unsettledBecause: unknown.because,
        canPoll: prepared.canPoll === true,
        ...(unknown.result?.job === undefined ? {} : { job: unknown.result.job }),
        ...(unknown.result?.callSpan === undefined ? {} : { callSpan: unknown.result.callSpan }),
        toolTimeoutMs: options.timeoutMs ?? PACKAGE_CALL_DEFAULTS.timeoutMs,
        policy: { ...DEFAULT_RECONCILE_POLICY, ...options.reconcile },
        summary: callSummary(prepared),
        ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
        // The one safe re-dispatch runs on the same approval (the tool activity checks it again).
        ...(options.approval === undefined ? {} : { approval: options.approval }),
      },
    ],
    // The child must survive its parent: a human may settle the side effect after the agent is gone.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    staticSummary: unknown.result?.job === undefined ? `Reconcile ${prepared.identity.tool} (unknown outcome)` : `Poll ${prepared.identity.tool} job (accepted)`,
    staticDetails: `Idempotency key \`${prepared.identity.idempotencyKey}\`; parent workflow \`${workflowInfo().workflowId}\`, call \`${prepared.identity.callId}\`.`,
    typedSearchAttributes: [
      { key: IDEMPOTENCY_KEY_SA, value: prepared.identity.idempotencyKey },
      { key: RECONCILE_STATE_SA, value: 'reconciling' satisfies ReconcileState },
    ],
  };
}
