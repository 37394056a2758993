import type { CallFailure } from './call-failure.js';
import type { AnyToolImplementation } from './tool-spec.js';
import type { ExecutionContext } from './execution-context.js';
import { failedExecutionOf } from './funnel/finish-execution.js';
import { startState } from './funnel/funnel-state.js';
import { digestArgumentsOf } from './funnel/input-steps.js';
import { runFunnel } from './funnel/run-funnel.js';
import type { ToolExecution } from './funnel/tool-execution.js';

export { checkArguments, MAX_ARGUMENT_DEPTH, type CheckedArguments } from './funnel/input-steps.js';
export { checkBeforeHandler, type PreDispatchCheck } from './funnel/run-funnel.js';
export type { ArtifactPayload, StartedJob, ToolExecution } from './funnel/tool-execution.js';

/**
 * Runs one tool call through the whole funnel — input, handler, protocol, schema, semantics, evidence, side
 * effect, redaction, budget — and returns the model result and the audit record bound by digests.
 *
 * It never throws for anything the tool or its input does: every such case becomes a catalogued result.
 */
export async function executeTool(
  tool: AnyToolImplementation,
  rawArgs: unknown,
  ctx: ExecutionContext,
): Promise<ToolExecution> {
  return runFunnel(tool, rawArgs, ctx);
}

/**
 * The failure projection of a call that never reached a handler (an unknown tool, a refused approval): the same
 * model result and audit shape as any other failure, so hosts handle one kind of result.
 */
export function failedExecution(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  failure: CallFailure,
  rawArgs: unknown = null,
): ToolExecution {
  const state = { ...startState(tool, ctx, rawArgs), digestArguments: digestArgumentsOf(rawArgs) };
  return failedExecutionOf(state, failure);
}
