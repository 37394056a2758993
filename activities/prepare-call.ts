import { requestDigest, type ProviderContext } from '../src/contract/bindings.js';
import type { AnyToolDefinition, Principal, ToolEffect } from '../src/contract/define-tool.js';
import { catalogFailure } from '../src/contract/call-failure.js';
import { checkBeforeHandler, failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import { businessIdempotencyKey } from '../src/contract/idempotency-key.js';
import { ToolRegistry } from '../src/contract/tool-registry.js';
import { Redactor } from '../src/contract/redaction.js';
import { activityExecutionContext, activityWorkflow } from './call-context.js';
import { AUDIT_ATTEMPT_BASE, type CallIdentity } from './call-identity.js';
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

/** A secret-free description of a call, for approvers and the UI. */
export interface CallPreview {
  readonly tool: string;
  readonly effect: ToolEffect;
  /** The validated arguments with credentials and sensitive fields removed. */
  readonly arguments: unknown;
  readonly requestSha256: string;
}

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
      /** The tool can ask the authoritative system about a key (`reconcile`). */
      readonly canReconcile: boolean;
      /** The tool can ask about a job it started by the job's handle (`poll`). Absent in calls prepared before it existed. */
      readonly canPoll?: boolean;
      /** An uncommitted write may be dispatched once more with the same key. */
      readonly safeRetry: boolean;
      readonly requestSha256: string;
      readonly preview: CallPreview;
    }
  | { readonly kind: 'refused'; readonly result: ToolCallResult };

/** A call the worker prepared and that may run. */
export type ReadyCall = Extract<PreparedCall, { kind: 'ready' }>;

/**
 * Validates a call's arguments and fixes its identity: the idempotency key is the tool's business key scoped by
 * tenant when it derives one, else `<workflow id>:<call id>` (deterministic across retries and replays). The
 * prepared call is recorded in history, so a replay keeps the key it was prepared with.
 */
export function createPrepareCall(runtime: ToolRuntime): (input: PrepareCallInput) => Promise<PreparedCall> {
  return async (input) => {
    const { workflowId } = activityWorkflow();
    const operationId = `${workflowId}:${input.callId}`;
    const refusalIdentity: CallIdentity = { ...callOf(input), operationId, idempotencyKey: operationId };
    const checked = await checkCall(runtime, input, activityExecutionContext(refusalIdentity, AUDIT_ATTEMPT_BASE.settled, hostKeysOf(runtime)));
    if (checked.kind === 'refused') return { kind: 'refused', result: await recordRefusal(runtime, checked.execution, refusalIdentity, workflowId) };
    const { tool, arguments: args } = checked;
    const idempotencyKey = tool.idempotencyKey === undefined ? operationId : businessIdempotencyKey(tool.name, input.principal.tenant, String(tool.idempotencyKey(args)));
    const identity: CallIdentity = { ...callOf(input), operationId, idempotencyKey };
    const requestSha256 = requestDigest(input.principal, tool, args);
    const redactor = new Redactor({ sensitiveFields: tool.sensitiveFields, protectedSubstrings: [idempotencyKey, operationId], protectedExact: [input.principal.tenant, input.principal.subject] });
    return {
      kind: 'ready',
      identity,
      effect: tool.effect,
      requiresApproval: tool.requiresApproval,
      // Only when set, so that the recorded result of an ordinary call keeps its shape.
      ...(tool.callLimit === undefined ? {} : { callLimit: tool.callLimit }),
      canReconcile: tool.reconcile !== undefined,
      canPoll: tool.poll !== undefined,
      safeRetry: runtime.safeRetryTools.has(tool.name),
      requestSha256,
      preview: { tool: tool.name, effect: tool.effect, arguments: redactor.value(args, '/arguments', []), requestSha256 },
    };
  };
}

/**
 * Refuses, before any handler runs, an unknown (or not allowed) tool, malformed or invalid arguments, a refused
 * continuation cursor and a principal the tool's `authorize` denies — before an approval is even asked for. The tool
 * activity checks all of it again at dispatch. A registered tool outside the allowed set is looked up in an empty
 * registry, so it is exactly as unknown as an unregistered one.
 */
async function checkCall(runtime: ToolRuntime, input: PrepareCallInput, ctx: ExecutionContext): Promise<{ kind: 'refused'; execution: ToolExecution } | { kind: 'ready'; tool: AnyToolDefinition; arguments: unknown }> {
  const allowed = input.allowedTools === undefined || input.allowedTools.includes(input.tool);
  if (!allowed || !runtime.registry.has(input.tool)) {
    return { kind: 'refused', execution: await (allowed ? runtime.registry : new ToolRegistry()).execute(input.tool, input.args, ctx) };
  }
  const tool = runtime.registry.get(input.tool);
  if (input.malformedArguments !== undefined) {
    return { kind: 'refused', execution: failedExecution(tool, ctx, catalogFailure('INVALID_ARGUMENTS', 'input', { reason: input.malformedArguments }), input.args) };
  }
  const checked = await checkBeforeHandler(tool, input.args, ctx);
  return checked.kind === 'refused' ? checked : { kind: 'ready', tool, arguments: checked.arguments };
}

/** The fields of the input that identify the call (the refusal options are not part of its identity). */
function callOf(input: PrepareCallInput): Omit<CallIdentity, 'operationId' | 'idempotencyKey'> {
  return { tool: input.tool, args: input.args, callId: input.callId, principal: input.principal, provider: input.provider };
}

/** A refused call still claims and releases its key, so its audit row is recorded like any other attempt. */
async function recordRefusal(runtime: ToolRuntime, execution: ToolExecution, identity: CallIdentity, workflowId: string): Promise<ToolCallResult> {
  const claim = await runtime.store.claimIdempotencyKey({
    idempotencyKey: identity.idempotencyKey,
    requestSha256: execution.audit.bindings.request_sha256,
    tool: execution.modelResult.tool,
    callId: identity.callId,
    workflowId,
  });
  if (claim.kind === 'conflict') return { modelResult: execution.modelResult, auditRef: null };
  return { modelResult: execution.modelResult, auditRef: await recordExecution(runtime.store, execution) };
}
