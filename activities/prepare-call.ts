import type { ProviderContext } from '../src/contract/bindings.js';
import type { AnyToolDefinition, Principal, ToolCallDefaults, ToolEffect } from '../src/contract/define-tool.js';
import { catalogFailure } from '../src/contract/call-failure.js';
import { checkBeforeHandler, executeTool, failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import { recordableContext } from '../src/contract/funnel/recordable-context.js';
import { ToolRegistry } from '../src/contract/tool-registry.js';
import { activityExecutionContext, activityWorkflow } from './call-context.js';
import { AUDIT_ATTEMPT_BASE, type CallIdentity } from './call-identity.js';
import { businessKeyOf } from './call-ownership.js';
import { callPreview, type CallPreview } from './call-preview.js';
import { recordExecution } from './record-execution.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import type { ToolCallResult } from './tool-activity.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';

/** What workflow code knows about a call before preparing it. */
export interface PrepareCallInput {
  readonly tool: string;
  readonly args: unknown;
  readonly callId: string;
  readonly principal: Principal;
  readonly provider: ProviderContext;
  /** When given, a tool outside this set is refused as `UNKNOWN_TOOL` even if it is registered (the agent loop's allowed tools). */
  readonly allowedTools?: readonly string[];
  /**
   * Set when the caller received arguments that are not a JSON object (a model's malformed tool call): the call is
   * refused as `INVALID_ARGUMENTS` at the input layer and never runs; `args` then holds the raw text.
   */
  readonly malformedArguments?: string;
}

export type { CallPreview } from './call-preview.js';

/**
 * The call as the worker sees it, recorded in history so replay stays deterministic: either ready to run (with
 * everything workflow code needs to decide how), or refused before anything ran (unknown tool, invalid arguments),
 * with its catalogued result.
 */
export type PreparedCall =
  | {
      readonly kind: 'ready';
      readonly identity: CallIdentity;
      readonly effect: ToolEffect;
      readonly requiresApproval: boolean;
      /** The tool's own limit on its calls per workflow, when it declares one. */
      readonly callLimit?: number;
      /**
       * The tool's own name, when the call was made under one of its aliases: its calls are counted against call limits
       * under this one name, whatever name each was made by.
       */
      readonly canonicalTool?: string;
      /** How the tool's calls run unless the call says otherwise, when it declares any. */
      readonly callDefaults?: ToolCallDefaults;
      /** The tool can ask the authoritative system about a key (`reconcile`). */
      readonly canReconcile: boolean;
      /** The tool can ask about a job it started by the job's handle (`poll`). Absent in calls prepared before it existed. */
      readonly canPoll?: boolean;
      /** An uncommitted write may be dispatched once more with the same key. */
      readonly safeRetry: boolean;
      readonly requestSha256: string;
      readonly preview: CallPreview;
      /**
       * How the call's approval is decided: only by a decision the worker verified. Recorded with the call, so a
       * run replays the rules it ran by; calls prepared before decisions were verified lack it and keep the old ones.
       */
      readonly decisions?: 'verified';
    }
  | { readonly kind: 'refused'; readonly result: ToolCallResult };

/** A call the worker prepared and that may run. */
export type ReadyCall = Extract<PreparedCall, { kind: 'ready' }>;

/**
 * Validates a call's arguments and fixes its identity: the idempotency key is the tool's business key scoped by
 * tenant when it derives one, else `<workflow id>:<call id>` (deterministic across retries and replays). The
 * prepared call is recorded in history, so a replay keeps the key it was prepared with. Never throws for anything
 * the arguments or the tool do: a call that cannot run is refused here with its catalogued result, recorded in
 * history like a ready one, so the workflow goes on.
 */
export function createPrepareCall(runtime: ToolRuntime): (input: PrepareCallInput) => Promise<PreparedCall> {
  return async (input) => {
    const { workflowId } = activityWorkflow();
    const operationId = `${workflowId}:${input.callId}`;
    const unkeyed: CallIdentity = { ...callOf(input), operationId, idempotencyKey: operationId };
    const unkeyedCtx = activityExecutionContext(unkeyed, AUDIT_ATTEMPT_BASE.settled, hostKeysOf(runtime));
    const checked = await checkCall(runtime, input, unkeyedCtx);
    if (checked.kind === 'refused') return refused(runtime, checked.execution, workflowId);
    const { tool } = checked;
    const key = businessKeyOf(tool, input.principal.tenant, checked.arguments);
    if (!key.ok) {
      // The tool's own key function failed on arguments its schema accepted: the tool's defect, not the model's.
      const failure = catalogFailure('TOOL_ERROR', 'input', { reason: 'idempotency_key_threw', thrown: key.thrown });
      return refused(runtime, failedExecution(tool, unkeyedCtx, failure, input.args), workflowId);
    }
    const identity: CallIdentity = { ...unkeyed, idempotencyKey: key.value ?? operationId };
    const ctx = activityExecutionContext(identity, AUDIT_ATTEMPT_BASE.settled, hostKeysOf(runtime));
    // A business key that cannot be recorded (derived from an unbounded argument, a split surrogate pair): the funnel
    // refuses the call before its handler, as it would inside the tool activity.
    if (!recordable(ctx)) return refused(runtime, await executeTool(tool, input.args, ctx), workflowId);
    // What is digested is what the preview shows: the validated arguments (as sent, when the schema's output is not JSON).
    const preview = callPreview(tool, identity, checked.digestArguments);
    return {
      kind: 'ready',
      identity,
      effect: tool.effect,
      requiresApproval: tool.requiresApproval,
      // Only when set, so that the recorded result of an ordinary call keeps its shape.
      ...(tool.callLimit === undefined ? {} : { callLimit: tool.callLimit }),
      ...canonicalToolOf(runtime, input.tool),
      ...(tool.callDefaults === undefined ? {} : { callDefaults: tool.callDefaults }),
      canReconcile: tool.reconcile !== undefined,
      canPoll: tool.poll !== undefined,
      safeRetry: runtime.safeRetryTools.has(tool.name),
      requestSha256: preview.requestSha256,
      preview,
      decisions: 'verified',
    };
  };
}

/**
 * Refuses, before any handler runs, an unknown (or not allowed) tool, a caller or provider value the audit cannot
 * record, malformed or invalid arguments (a schema that throws included), a refused continuation cursor and a
 * principal the tool's `authorize` denies — before an approval is even asked for. The tool
 * activity checks all of it again at dispatch. A registered tool outside the allowed set is looked up in an empty
 * registry, so it is exactly as unknown as an unregistered one.
 */
async function checkCall(
  runtime: ToolRuntime,
  input: PrepareCallInput,
  ctx: ExecutionContext,
): Promise<{ kind: 'refused'; execution: ToolExecution } | { kind: 'ready'; tool: AnyToolDefinition; arguments: unknown; digestArguments: unknown }> {
  const allowed = input.allowedTools === undefined || input.allowedTools.includes(input.tool);
  if (!allowed || !runtime.registry.has(input.tool)) {
    return { kind: 'refused', execution: await (allowed ? runtime.registry : new ToolRegistry()).execute(input.tool, input.args, ctx) };
  }
  const tool = runtime.registry.get(input.tool);
  if (input.malformedArguments !== undefined) {
    return { kind: 'refused', execution: failedExecution(tool, ctx, catalogFailure('INVALID_ARGUMENTS', 'input', { reason: input.malformedArguments }), input.args) };
  }
  const checked = await checkBeforeHandler(tool, input.args, ctx);
  return checked.kind === 'refused' ? checked : { kind: 'ready', tool, arguments: checked.arguments, digestArguments: checked.digestArguments };
}

/** The fields of the input that identify the call (the refusal options are not part of its identity). */
function callOf(input: PrepareCallInput): Omit<CallIdentity, 'operationId' | 'idempotencyKey'> {
  return { tool: input.tool, args: input.args, callId: input.callId, principal: input.principal, provider: input.provider };
}

/** The tool's own name when `called` is one of its aliases (nothing for its own name). */
function canonicalToolOf(runtime: ToolRuntime, called: string): { readonly canonicalTool?: string } {
  const name = runtime.registry.nameOf(called);
  return name === undefined || name === called ? {} : { canonicalTool: name };
}

/** True when the audit can record every trusted value of the call as given (see `recordableContext`). */
function recordable(ctx: ExecutionContext): boolean {
  return recordableContext(ctx).unrecordable.length === 0;
}

/**
 * A refused call still claims and releases its key, so its audit row is recorded like any other attempt. The key and
 * call id claimed are the audit's: as recorded, which a store can always hold.
 */
async function refused(runtime: ToolRuntime, execution: ToolExecution, workflowId: string): Promise<PreparedCall> {
  const { audit, modelResult } = execution;
  const claim = await runtime.store.claimIdempotencyKey({
    idempotencyKey: audit.idempotency_key,
    requestSha256: audit.bindings.request_sha256,
    tool: modelResult.tool,
    callId: audit.call_id,
    workflowId,
  });
  const auditRef = claim.kind === 'conflict' ? null : await recordExecution(runtime.store, execution);
  return { kind: 'refused', result: { modelResult, auditRef } };
}
