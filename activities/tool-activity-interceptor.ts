import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { requestDigest } from '../src/contract/bindings.js';
import { catalogFailure } from '../src/contract/call-failure.js';
import type { AnyToolDefinition, HandlerContext } from '../src/contract/define-tool.js';
import { executeTool, failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import { asLocalReplay, withOutcomeUnknown } from '../src/contract/settled-results.js';
import { ToolError } from '../src/contract/tool-error.js';
import { FUNNELLED_CALL_KIND } from '../src/wire/message-kinds.js';
import { AUDIT_ATTEMPT_BASE } from './call-identity.js';
import { activityExecutionContext } from './call-context.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import { isFunnelledCall, isToolActivityInput, type FunnelledCall, type ToolActivityInput, type ToolCallResult } from './tool-activity.js';
import { recordExecution } from './record-execution.js';
import { retryableReadFailure, toApplicationFailure } from './tool-failure.js';

/**
 * The activity interceptor that turns a tool activity into a contract-safe call: idempotency ledger first (a key
 * that already ran is replayed, never re-run), then the whole contract funnel around the tool's handler, then the
 * audit, evidence and artifacts in Postgres; it returns `{ modelResult, auditRef }`.
 *
 * Registered twice (plugin on two layers), the outer instance runs the funnel and marks the call it passes on as
 * funnelled; the inner one sees the mark and passes through, so a result is normalized exactly once.
 */
export function toolActivityInterceptors(runtime: ToolRuntime): ActivityInterceptorsFactory {
  return (ctx) => ({ inbound: new ToolActivityInterceptor(runtime, ctx) });
}

class ToolActivityInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly runtime: ToolRuntime,
    private readonly activity: ActivityContext,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const [call, second] = input.args;
    const type = this.activity.info.activityType;
    if (isFunnelledCall(second) || !isToolActivityInput(call) || !this.runtime.registry.has(type)) return next(input);
    const tool = this.runtime.registry.get(type);
    try {
      return await this.run(tool, call, input, next);
    } catch (error) {
      throw toApplicationFailure(error);
    }
  }

  private async run(tool: AnyToolDefinition, call: ToolActivityInput, input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<ToolCallResult> {
    const { info } = this.activity;
    const base = call.dispatch === 'redispatch' ? AUDIT_ATTEMPT_BASE.redispatch : AUDIT_ATTEMPT_BASE.dispatch;
    const ctx = activityExecutionContext({ ...call, tool: tool.name }, base + info.attempt, hostKeysOf(this.runtime));
    const workflowId = ctx.temporal?.workflowId ?? 'none';

    const claim = await this.runtime.store.claimIdempotencyKey({
      idempotencyKey: call.idempotencyKey,
      requestSha256: intendedRequestDigest(tool, ctx, call.args),
      tool: tool.name,
      callId: call.callId,
      workflowId,
    });
    switch (claim.kind) {
      case 'replay':
        return { modelResult: asLocalReplay(claim.modelResult), auditRef: claim.auditRef };
      case 'conflict': {
        const failure = catalogFailure('IDEMPOTENCY_CONFLICT', 'side_effect', { recorded_tool: claim.recordedTool, recorded_request_sha256: claim.recordedRequestSha256 });
        // The key belongs to another request: nothing is recorded under it, the result is for this caller only.
        return { modelResult: failedExecution(tool, ctx, failure, call.args).modelResult, auditRef: null };
      }
      case 'in_progress':
        // A write claimed before and never settled may have taken effect: never run it again (SPEC §7).
        if (tool.effect !== 'read') {
          const unknown = withOutcomeUnknown(tool, ctx, call.args, { reason: `key ${claim.state} since ${claim.claimedAt}` });
          return { modelResult: unknown.modelResult, auditRef: claim.auditRef };
        }
        break;
      case 'claimed':
        break;
    }

    const funnelled: AnyToolDefinition = {
      ...tool,
      handler: (args: unknown, handlerContext: HandlerContext) => {
        const mark: FunnelledCall = { kind: FUNNELLED_CALL_KIND, handlerContext };
        return next({ ...input, args: [args, mark] }) as Promise<never>;
      },
    };
    const execution = await executeTool(funnelled, call.args, ctx);
    const auditRef = await this.record(tool, execution, claim.kind === 'claimed' ? claim.claimedAt : undefined);
    const modelResult = execution.modelResult;
    if (tool.effect === 'read' && modelResult.error?.retryable === true && !this.lastAttempt()) {
      // Temporal retries by policy; the last attempt returns the catalogued result instead.
      throw retryableReadFailure(modelResult);
    }
    return { modelResult, auditRef, ...(execution.job ? { job: execution.job } : {}) };
  }

  /** Records the attempt; a write that may have taken effect but cannot be recorded is reported as unknown. */
  private async record(tool: AnyToolDefinition, execution: ToolExecution, claimedAt: string | undefined): Promise<ToolCallResult['auditRef']> {
    try {
      return await recordExecution(this.runtime.store, execution, claimedAt);
    } catch (error) {
      const outcome = execution.modelResult.execution.outcome;
      if (tool.effect !== 'read' && (outcome === 'committed' || outcome === 'unknown')) {
        throw toApplicationFailure(new ToolError('OUTCOME_UNKNOWN', { reason: 'write ran but its result could not be recorded' }), execution.modelResult);
      }
      throw error;
    }
  }

  private lastAttempt(): boolean {
    const maximum = this.activity.info.retryPolicy?.maximumAttempts;
    return maximum !== undefined && maximum > 0 && this.activity.info.attempt >= maximum;
  }
}

/** The request digest the ledger is keyed on: over the validated arguments, as the funnel will compute it. */
function intendedRequestDigest(tool: AnyToolDefinition, ctx: ExecutionContext, rawArgs: unknown): string {
  const parsed = (tool.input as { safeParse: (value: unknown) => { success: boolean; data?: unknown } }).safeParse(rawArgs);
  if (parsed.success) {
    try {
      return requestDigest(ctx.principal, tool, parsed.data);
    } catch {
      // Arguments whose parsed form is not JSON are digested as sent, like the funnel does.
    }
  }
  return requestDigest(ctx.principal, tool, rawArgs);
}
