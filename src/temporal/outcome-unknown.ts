import { catalogFailure } from '../contract/call-failure.js';
import type { AnyToolDefinition } from '../contract/define-tool.js';
import { failedExecution, type ToolExecution } from '../contract/execute-tool.js';
import type { ExecutionContext } from '../contract/execution-context.js';
import { reshapeExecution } from './reshape-execution.js';

/**
 * The result of a write whose fate is not known without having run it now (its key was claimed by an attempt that
 * never settled): `status: unknown`, `outcome: unknown`, `OUTCOME_UNKNOWN` — the caller must reconcile, not retry.
 */
export function withOutcomeUnknown(tool: AnyToolDefinition, ctx: ExecutionContext, rawArgs: unknown, detail: Record<string, unknown>): ToolExecution {
  const failed = failedExecution(tool, ctx, catalogFailure('OUTCOME_UNKNOWN', 'side_effect', detail), rawArgs);
  return reshapeExecution(failed, (result) => ({ ...result, status: 'unknown', execution: { ...result.execution, outcome: 'unknown' } }), { tool, ctx });
}
