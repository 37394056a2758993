import type { ProviderContext } from '../src/contract/bindings.js';
import type { HandlerContext, Principal, ToolOutput } from '../src/contract/tool-handler.js';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import type { StartedJob } from '../src/contract/execute-tool.js';
import type { ModelResult } from '../src/contract/model-result.js';
import type { AuditRef } from '../src/store/ledger.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import type { CallSpanRef } from './call-telemetry.js';
import { ToolError } from '../src/contract/tool-error.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../src/wire/message-kinds.js';
import { toApplicationFailure } from './tool-failure.js';
import type { VerifiedDecision } from './verify-decision.js';

/** Why this execution of a call runs: the first dispatch, or the one safe retry after "not committed". */
export type DispatchKind = 'dispatch' | 'redispatch';

/** The argument of every tool activity (activity type = tool name). Built by workflow code; small. */
export interface ToolActivityInput {
  readonly kind: typeof TOOL_ACTIVITY_INPUT_KIND;
  /** Arguments as the model (or workflow) sent them; validated again inside the activity. */
  readonly args: unknown;
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  readonly principal: Principal;
  readonly provider: ProviderContext;
  readonly dispatch: DispatchKind;
  /** For a tool that requires approval: the approval the workflow verified. Without one the tool refuses to run. */
  readonly approval?: VerifiedDecision;
  /**
   * The tool's revision the workflow decided the call by (`ToolFacts.revision`): a worker serving the tool under
   * another revision refuses the call (`TOOL_REVISION_UNSERVED`) rather than run it under rules nobody chose.
   */
  readonly revision: string;
}

/** What a tool activity returns: the model result and a reference to the audit in Postgres — never the audit. */
export interface ToolCallResult {
  readonly modelResult: ModelResult;
  readonly auditRef: AuditRef | null;
  /** The job an `accepted` call started, with its handle as the authoritative system gave it (for polling). */
  readonly job?: StartedJob;
  /** Calls this result replaced — a re-query, fallback tools — in the order they ran; absent when there were none. */
  readonly attempts?: readonly ReplacedAttempt[];
  /** The span the worker's telemetry made for this attempt, for a reconciliation to link to; absent without telemetry. */
  readonly callSpan?: CallSpanRef;
}

/** A call whose result was replaced by a recovery path (see `CallToolOptions.requery` and `fallbackTools`). */
export interface ReplacedAttempt {
  readonly tool: string;
  readonly callId: string;
  readonly status: ModelResult['status'];
  readonly code: string | null;
  readonly auditId: string | null;
}

/**
 * What the interceptor hands a tool activity function once the contract funnel has run up to the handler: the
 * handler's context. It is an object of the worker's own memory, told apart by a private field that no value decoded
 * from an activity input can carry: nothing a workflow schedules can claim that the funnel ran.
 */
export class FunnelledCall {
  readonly #funnelled = true;

  readonly handlerContext: HandlerContext;

  constructor(handlerContext: HandlerContext) {
    this.handlerContext = handlerContext;
  }

  /** True only for an instance the interceptor made in this process (never for a look-alike from history). */
  static is(value: unknown): value is FunnelledCall {
    return typeof value === 'object' && value !== null && #funnelled in value;
  }
}

/** The identity of the call a tool activity runs (its input without the message tag and dispatch kind). */
export function callIdentityOf(call: ToolActivityInput, tool: string): CallIdentity {
  const { args, callId, operationId, idempotencyKey, principal, provider } = call;
  return { tool, args, callId, operationId, idempotencyKey, principal, provider };
}

/** True when `value` is a {@link ToolActivityInput} (shape only; the interceptor validates the rest). */
export function isToolActivityInput(value: unknown): value is ToolActivityInput {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === TOOL_ACTIVITY_INPUT_KIND;
}

/**
 * One activity function per tool, registered under the tool's name so the name shows in the Temporal UI, and under
 * each of its aliases so calls scheduled under an earlier name keep being served. The function only runs the
 * handler; the tool activity interceptor runs the contract funnel around it and calls it with validated arguments
 * and a {@link FunnelledCall}. Called any other way — without the interceptor, or with a second argument that only
 * looks like one — it refuses (non-retryable) and the handler never runs.
 */
export function createToolActivities(
  tools: Iterable<AnyToolImplementation>,
): Record<string, (...args: unknown[]) => Promise<ToolOutput<unknown>>> {
  const activities: Record<string, (...args: unknown[]) => Promise<ToolOutput<unknown>>> = {};
  for (const tool of tools) {
    for (const name of toolActivityTypes(tool)) {
      activities[name] = async (args: unknown, funnelled: unknown) => {
        if (!FunnelledCall.is(funnelled))
          throw toApplicationFailure(new ToolError('TOOL_ERROR', { reason: 'not_funnelled', tool: name }));
        return (await tool.handler(args, funnelled.handlerContext)) as ToolOutput<unknown>;
      };
    }
  }
  return activities;
}

/** The activity types a tool is served under: its name, then its aliases. */
export function toolActivityTypes(tool: AnyToolImplementation): readonly string[] {
  return [tool.name, ...(tool.aliases ?? [])];
}
