import type { Context as ActivityContext } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { committedReceipt, deliveryRefusal } from '../src/contract/authorized-delivery.js';
import { catalogFailure } from '../src/contract/call-failure.js';
import { withDecision } from '../src/contract/decision-record.js';
import type { HandlerContext } from '../src/contract/tool-handler.js';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import { executeTool, failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import { recordableContext } from '../src/contract/funnel/recordable-context.js';
import { asLocalReplay, withOutcomeUnknown } from '../src/contract/settled-results.js';
import { ToolError } from '../src/contract/tool-error.js';
import type { ModelResult } from '../src/contract/model-result.js';
import { isStoreError } from '../src/store/store-error.js';
import type { ClaimResult } from '../src/store/ledger.js';
import { approvalSubject, checkApprovalGrant, type ApprovalSubject } from './approval-gate.js';
import { attemptDeadline, SDK_LOCAL_TIMEOUT_BUFFER_MS, type AttemptDeadline } from './attempt-deadline.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import { AUDIT_ATTEMPT_BASE } from './audit-attempt.js';
import { activityExecutionContext } from './call-context.js';
import { callOwnership, settledNotCommittedByReceipt } from './call-ownership.js';
import { reportToolCall, settledToolCall, type AttemptEnd } from './call-report.js';
import { dispatchFence, unfencedWriteWarnings, type DispatchFence } from './dispatch-fence.js';
import { behindHandlerFence } from './fenced-handler.js';
import { cancelledCallError } from './cancelled-call.js';
import { withHeartbeats } from './heartbeats.js';
import { escalateIfLateResult } from './late-result.js';
import { intendedRequest } from './request-digest.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import {
  callIdentityOf,
  FunnelledCall,
  isToolActivityInput,
  type ToolActivityInput,
  type ToolCallResult,
} from './tool-activity.js';
import { recordExecution, type ClaimedAttempt } from './record-execution.js';
import { retryableReadFailure, toApplicationFailure } from './tool-failure.js';

/**
 * The activity interceptor that turns a tool activity into a contract-safe call: for a write, idempotency ledger
 * first (a key that already ran is replayed, never re-run; a read claims nothing), then — for a tool that requires
 * approval — a valid approval for exactly these arguments, then the whole contract funnel around the tool's handler,
 * then the audit (naming the approver), evidence and artifacts in Postgres; it returns `{ modelResult, auditRef }`.
 *
 * Registered twice (plugin on two layers), the outer instance runs the funnel and hands the call it passes on a
 * {@link FunnelledCall} (an object of this process, never an input); the inner one sees it and passes through, so a
 * result is normalized exactly once. A tool's activity never runs its handler on anything else: an input that is no
 * tool call is refused here, and a tool call under an activity type that is no tool (a model's name for another
 * activity, a `ttc.*` one) is refused before that activity runs.
 */
export function toolActivityInterceptors(runtime: ToolRuntime): ActivityInterceptorsFactory {
  const warnUnfenced = unfencedWriteWarnings();
  return (ctx) => ({ inbound: new ToolActivityInterceptor(runtime, ctx, warnUnfenced) });
}

class ToolActivityInterceptor implements ActivityInboundCallsInterceptor {
  private readonly runtime: ToolRuntime;
  private readonly activity: ActivityContext;
  private readonly warnUnfenced: ReturnType<typeof unfencedWriteWarnings>;

  constructor(runtime: ToolRuntime, activity: ActivityContext, warnUnfenced: ReturnType<typeof unfencedWriteWarnings>) {
    this.runtime = runtime;
    this.activity = activity;
    this.warnUnfenced = warnUnfenced;
  }

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const [call, second] = input.args;
    const type = this.activity.info.activityType;
    if (FunnelledCall.is(second)) return next(input);
    if (!this.runtime.registry.has(type)) {
      if (!isToolActivityInput(call)) return next(input);
      // Workflow code dispatched a tool call under a name that is no tool here: refused outright.
      throw toApplicationFailure(new ToolError('UNKNOWN_TOOL', { activity_type: type.slice(0, 200) }));
    }
    // A tool's activity with an input that is no tool call (say, raw arguments): nothing to check it against.
    if (!isToolActivityInput(call))
      throw toApplicationFailure(new ToolError('INVALID_ARGUMENTS', { reason: 'not_a_tool_call' }));
    // The attempt's deadline counts from here: at (or just after) the moment the server started its timer.
    const startedAtMs = Date.now();
    const deadline = attemptDeadline(this.activity, startedAtMs);
    const tool = this.runtime.registry.get(type);
    // Reported under the name the call runs as (an alias keeps its own), like its key and audit.
    const report = (end: AttemptEnd) =>
      reportToolCall(
        this.runtime.telemetry ?? null,
        settledToolCall({ name: type, effect: tool.effect }, call.callId, this.activity.info.attempt, startedAtMs, end),
      );
    try {
      // Heartbeats carry a workflow cancel to the attempt (its deadline signal, the handler's `ctx.signal`).
      const result = await withHeartbeats(() => this.run(tool, call, deadline, input, next));
      const callSpan = report({ result });
      return callSpan === null ? result : { ...result, callSpan };
    } catch (error) {
      const failure = toApplicationFailure(error);
      report({ failure });
      throw failure;
    }
  }

  private async run(
    tool: AnyToolImplementation,
    call: ToolActivityInput,
    deadline: AttemptDeadline,
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<ToolCallResult> {
    const { info } = this.activity;
    const base = call.dispatch === 'redispatch' ? AUDIT_ATTEMPT_BASE.redispatch : AUDIT_ATTEMPT_BASE.dispatch;
    const identity = callIdentityOf(call, tool.name);
    const ctx = activityExecutionContext(identity, base + info.attempt, hostKeysOf(this.runtime), deadline.signal);
    const workflowId = ctx.temporal?.workflowId ?? 'none';

    // Workflow code decided this call by its copy of the tool's declaration: a worker serving another revision of the
    // tool (a deploy in progress) runs nothing and records nothing. A read is retried — another worker may serve it.
    if (call.revision !== tool.facts.revision) {
      const unserved = failedExecution(
        tool,
        ctx,
        catalogFailure('TOOL_REVISION_UNSERVED', 'input', {
          requested: String(call.revision).slice(0, 80),
          served: tool.facts.revision,
        }),
        call.args,
      ).modelResult;
      if (tool.effect === 'read' && !this.lastAttempt()) throw retryableReadFailure(unserved);
      return { modelResult: unserved, auditRef: null };
    }
    // The identity is workflow code's, derived by the same rule the worker applies (`identifyCall`): a call whose
    // operation id is another workflow's, or whose key its arguments do not own, acts on nothing of that other call's.
    if (
      callOwnership(tool, identity, call.dispatch === 'redispatch' ? ['reconciliation'] : ['own_workflow']) === null
    ) {
      return {
        modelResult: failedExecution(
          tool,
          ctx,
          catalogFailure('PERMISSION_DENIED', 'input', { reason: 'foreign_call' }),
          call.args,
        ).modelResult,
        auditRef: null,
      };
    }
    // The caller as the audit records it, so that the digest is the audit's even for a value it cannot record as given.
    const intended = intendedRequest(tool, recordableContext(ctx).ctx.principal, call.args);
    if (call.dispatch === 'redispatch' && !(await this.mayRedispatch(tool, identity))) {
      // Refused before its key is claimed or anything is recorded: the key is another run's business.
      return {
        modelResult: failedExecution(
          tool,
          ctx,
          catalogFailure('TOOL_ERROR', 'side_effect', { reason: 'redispatch_not_allowed' }),
          call.args,
        ).modelResult,
        auditRef: null,
      };
    }
    let subject: ApprovalSubject | null = null;
    if (tool.requiresApproval) {
      subject = approvalSubject(tool, call, intended);
      // Another call's identity: refused before its key is claimed or anything is recorded under its audit id.
      if (subject === null)
        return {
          modelResult: failedExecution(
            tool,
            ctx,
            catalogFailure('APPROVAL_INVALID', 'approval', { reason: 'binding_mismatch' }),
            call.args,
          ).modelResult,
          auditRef: null,
        };
    }
    // A read claims nothing before it runs: running it twice has no side effect, so the record that ends it claims its
    // key in the same commit (one commit per read). Two racing reads of one key both run and the first record
    // completes the key; a read after that runs again rather than replaying. A read that needs approval keeps its
    // claim, so a replay of an approved read does not ask for the grant again.
    const claim = unclaimedRead(tool)
      ? null
      : await this.runtime.store.claimIdempotencyKey({
          idempotencyKey: call.idempotencyKey,
          requestSha256: intended.requestSha256,
          tool: tool.name,
          callId: call.callId,
          workflowId,
          // The lease lasts until the attempt's own deadline; the store takes its end on its own clock.
          lease: { runId: ctx.temporal?.runId ?? 'none', durationMs: deadline.atMs - Date.now() },
        });
    switch (claim?.kind) {
      case 'replay': {
        // Seed 001: a replay does not skip the current authorization. A refused one is for this caller only.
        const refused = await deliveryRefusal(tool, ctx, call.args, {
          delivery: 'local_replay',
          committed: committedReceipt(claim.modelResult),
        });
        if (refused !== null) return { modelResult: refused.modelResult, auditRef: null };
        return { modelResult: asLocalReplay(claim.modelResult), auditRef: claim.auditRef };
      }
      case 'conflict':
        // The key belongs to another request: nothing is recorded under it, the result is for this caller only.
        return { modelResult: conflictResult(tool, ctx, call, claim), auditRef: null };
      case 'fenced': {
        // Reconciliation settled this call while the attempt had not even claimed the key: it must not run now.
        const failure = catalogFailure('TIMEOUT_BEFORE_EXECUTE', 'side_effect', {
          reason: 'dispatch_fenced_by_reconciliation',
        });
        return { modelResult: failedExecution(tool, ctx, failure, call.args).modelResult, auditRef: null };
      }
      case 'in_progress':
        // A write claimed before and never settled may have taken effect: never run it again (SPEC §7).
        if (tool.effect !== 'read') {
          const unknown = withOutcomeUnknown(tool, ctx, call.args, {
            reason: `key ${claim.state} since ${claim.claimedAt}`,
          });
          return { modelResult: unknown.modelResult, auditRef: claim.auditRef };
        }
        break;
      case 'claimed':
      case undefined:
        break;
    }
    const approval = subject === null ? null : await checkApprovalGrant(this.runtime.decisions, call, subject);
    if (approval !== null && !approval.ok) {
      // Refused before the handler: recorded like any attempt that did not start (the key is released).
      const refused = failedExecution(
        tool,
        ctx,
        catalogFailure(approval.code, 'approval', { reason: approval.reason }),
        call.args,
      );
      return {
        modelResult: refused.modelResult,
        auditRef: await this.record(tool, refused, claimedAttempt(claim, null, deadline)),
      };
    }

    const funnelled: AnyToolImplementation = {
      ...tool,
      handler: async (args: unknown, handlerContext: HandlerContext) => {
        try {
          return (await next({ ...input, args: [args, new FunnelledCall(handlerContext)] })) as never;
        } catch (thrown) {
          throw cancelledCallError(this.activity, thrown) ?? thrown;
        }
      },
    };
    const fence =
      claim?.kind === 'claimed' && claim.lease !== null
        ? dispatchFence(this.runtime.store, call.idempotencyKey, claim.lease, deadline)
        : null;
    const runnable = fence === null ? funnelled : behindHandlerFence(funnelled, fence);
    const executed = await executeTool(
      runnable,
      call.args,
      fence === null ? ctx : { ...ctx, beforeDispatch: fence.beforeDispatch },
    );
    const execution = approval === null ? executed : withDecision(executed, approval.decision);
    const attempt = claimedAttempt(claim, fence, deadline);
    const recorded = await this.recordUnlessConflict(tool, execution, attempt, call);
    if (recorded.kind === 'conflict') return { modelResult: conflictResult(tool, ctx, call, recorded), auditRef: null };
    const { auditRef } = recorded;
    if (auditRef !== null && attempt?.leaseToken !== undefined)
      await this.afterLeasedWrite(tool, identity, execution, auditRef.audit_id, attempt, fence, deadline);
    const modelResult = execution.modelResult;
    if (tool.effect === 'read' && modelResult.error?.retryable === true && !this.lastAttempt()) {
      // Temporal retries by policy; the last attempt returns the catalogued result instead.
      throw retryableReadFailure(modelResult);
    }
    return { modelResult, auditRef, ...(execution.job ? { job: execution.job } : {}) };
  }

  /**
   * The one safe re-dispatch of a write is the reconciliation's, and only after the authoritative system said "not
   * committed": the tool must be one this worker may dispatch again (`safeRetryTools`, checked here, not taken from
   * the workflow's word), the activity must run in the reconciliation workflow of the call's own key, and the key's
   * reconciliation must have settled "not committed" by receipt. A workflow that reuses the id of a closed
   * reconciliation, or sends a re-dispatch for a call nobody reconciled, runs nothing.
   */
  private async mayRedispatch(tool: AnyToolImplementation, identity: CallIdentity): Promise<boolean> {
    if (!this.runtime.safeRetryTools.has(tool.name) || callOwnership(tool, identity, ['reconciliation']) === null)
      return false;
    return settledNotCommittedByReceipt(this.runtime.store, identity.idempotencyKey);
  }

  /**
   * Records the attempt. An unclaimed read finds out only here that its key belongs to another request: its audit is
   * kept (it ran), and the caller gets the conflict the claim would have answered.
   */
  private async recordUnlessConflict(
    tool: AnyToolImplementation,
    execution: ToolExecution,
    attempt: ClaimedAttempt | undefined,
    call: ToolActivityInput,
  ): Promise<{ readonly kind: 'recorded'; readonly auditRef: ToolCallResult['auditRef'] } | KeyConflict> {
    try {
      return { kind: 'recorded', auditRef: await this.record(tool, execution, attempt) };
    } catch (error) {
      if (!unclaimedRead(tool) || !isStoreError(error) || error.reason !== 'idempotency_conflict') throw error;
      const recorded = await this.runtime.store.getLedgerEntry(call.idempotencyKey);
      if (recorded === null) throw error;
      return { kind: 'conflict', recordedRequestSha256: recorded.requestSha256, recordedTool: recorded.tool };
    }
  }

  /** Records the attempt; a write that may have taken effect but cannot be recorded is reported as unknown. */
  private async record(
    tool: AnyToolImplementation,
    execution: ToolExecution,
    attempt: ClaimedAttempt | undefined,
  ): Promise<ToolCallResult['auditRef']> {
    try {
      return await recordExecution(this.runtime.store, execution, attempt);
    } catch (error) {
      const outcome = execution.modelResult.execution.outcome;
      if (tool.effect !== 'read' && (outcome === 'committed' || outcome === 'unknown')) {
        throw toApplicationFailure(
          new ToolError('OUTCOME_UNKNOWN', { reason: 'write ran but its result could not be recorded' }),
          execution.modelResult,
        );
      }
      throw error;
    }
  }

  /**
   * A leased write that committed: warned about once if its handler never passed its own fence. One whose result may
   * contradict a "not committed" verdict reached meanwhile — a commit recorded past its deadline, an unknown outcome
   * whose request may have left late — is escalated to a human when the store found it so. Any earlier commit cannot
   * be late: a verdict on an attempt whose handler started waits out its deadline and more.
   */
  private async afterLeasedWrite(
    tool: AnyToolImplementation,
    identity: CallIdentity,
    execution: ToolExecution,
    auditId: string,
    attempt: ClaimedAttempt,
    fence: DispatchFence | null,
    deadline: AttemptDeadline,
  ): Promise<void> {
    const { outcome } = execution.modelResult.execution;
    if (tool.effect === 'read' || fence === null) return;
    if (outcome === 'committed' && !fence.passed()) this.warnUnfenced(tool.name, this.activity.log);
    const mayBeLate =
      outcome === 'committed'
        ? Date.now() >= deadline.atMs
        : outcome === 'unknown' && attempt.possiblySentLate === true;
    if (mayBeLate) await escalateIfLateResult(this.runtime.store, this.activity, identity, auditId);
  }

  private lastAttempt(): boolean {
    const maximum = this.activity.info.retryPolicy?.maximumAttempts;
    return maximum !== undefined && maximum > 0 && this.activity.info.attempt >= maximum;
  }
}

/**
 * What the record keeps of the attempt's claim. Its request may have left after a verdict only when its handler ran
 * and finished past the deadline plus sdk-core's buffer: the package's fence marks the attempt dispatched before its
 * handler starts, and a verdict on a dispatched attempt waits at least that long (or for a record saying it never
 * sent, which this one is not).
 */
function claimedAttempt(
  claim: ClaimResult | null,
  fence: DispatchFence | null,
  deadline: AttemptDeadline,
): ClaimedAttempt | undefined {
  if (claim?.kind !== 'claimed') return undefined;
  if (claim.lease === null || fence === null) return { claimedAt: claim.claimedAt };
  const possiblySentLate = fence.handlerStarted() && Date.now() >= deadline.atMs + SDK_LOCAL_TIMEOUT_BUFFER_MS;
  return { claimedAt: claim.claimedAt, leaseToken: claim.lease.token, possiblySentLate };
}

type KeyConflict = Extract<ClaimResult, { kind: 'conflict' }>;

/** A read that needs no approval runs without claiming its key first (see `run`). */
function unclaimedRead(tool: AnyToolImplementation): boolean {
  return tool.effect === 'read' && !tool.requiresApproval;
}

/** The model's answer for a key recorded under another request. */
function conflictResult(
  tool: AnyToolImplementation,
  ctx: Parameters<typeof failedExecution>[1],
  call: ToolActivityInput,
  conflict: KeyConflict,
): ModelResult {
  const failure = catalogFailure('IDEMPOTENCY_CONFLICT', 'side_effect', {
    recorded_tool: conflict.recordedTool,
    recorded_request_sha256: conflict.recordedRequestSha256,
  });
  return failedExecution(tool, ctx, failure, call.args).modelResult;
}
