import { callBindingDigest, resultDigest } from './bindings.js';
import { catalogFailure, describeThrown } from './call-failure.js';
import type { AnyToolImplementation } from './tool-spec.js';
import { failedExecution, type ToolExecution } from './execute-tool.js';
import type { ExecutionContext } from './execution-context.js';
import { recordableContext } from './funnel/recordable-context.js';
import { describeIssues, guardedParse } from './guarded-parse.js';
import { modelResultSchema, type ModelResult } from './model-result.js';

/** The trusted inputs an execution's call binding is derived from, and the arguments it was for. */
export interface TrustedCall {
  readonly tool: AnyToolImplementation;
  readonly ctx: ExecutionContext;
  readonly rawArgs: unknown;
}

/**
 * Rewrites the model result of an execution and re-derives every audit field that depends on it — status, error
 * code, `result_sha256` and `call_binding_sha256` — so the audit still verifies. The request digest is kept: the
 * business intent did not change. Never throws: a rewrite that fails its own schema or has no canonical form (a
 * defect) ends as an unknown outcome, which is safe for any call — never "failed" or "not started" for a write that
 * may have happened, and never a thrown activity that Temporal would retry into the same defect. (Exported so that
 * this guard can be tested: the shapes above cannot produce such a defect from their inputs.)
 */
export function reshapeExecution(
  execution: ToolExecution,
  change: (modelResult: ModelResult) => ModelResult,
  trusted: TrustedCall,
): ToolExecution {
  try {
    const changed = guardedParse(modelResultSchema, change(execution.modelResult));
    if (changed.success) return rebound(execution, changed.data, trusted);
    return unknownAfterDefect(trusted, { reason: 'settled_result_invalid', issues: describeIssues(changed.issues) });
  } catch (error) {
    return unknownAfterDefect(trusted, { reason: 'settled_result_threw', thrown: describeThrown(error) });
  }
}

function unknownAfterDefect(trusted: TrustedCall, detail: Record<string, unknown>): ToolExecution {
  const failed = failedExecution(
    trusted.tool,
    trusted.ctx,
    catalogFailure('OUTCOME_UNKNOWN', 'side_effect', detail),
    trusted.rawArgs,
  );
  return rebound(failed, asUnknown(failed.modelResult), trusted);
}

/** `execution` with `modelResult` in its place and the audit fields that depend on it re-derived. */
function rebound(execution: ToolExecution, modelResult: ModelResult, trusted: TrustedCall): ToolExecution {
  // Bound over the trusted values as the audit records them, as the funnel bound the execution being reshaped.
  const { ctx } = recordableContext(trusted.ctx);
  const requestSha256 = execution.audit.bindings.request_sha256;
  const resultSha256 = resultDigest(modelResult);
  const callBinding = callBindingDigest({
    provider: ctx.provider,
    callId: ctx.callId,
    operationId: ctx.operationId,
    idempotencyKey: ctx.idempotencyKey,
    tool: { name: trusted.tool.name, revisions: trusted.tool.revisions },
    requestSha256,
    resultSha256,
  });
  return {
    ...execution,
    modelResult,
    audit: {
      ...execution.audit,
      status: modelResult.status,
      error_code: modelResult.error?.code ?? null,
      bindings: { request_sha256: requestSha256, result_sha256: resultSha256, call_binding_sha256: callBinding },
    },
  };
}

/** The unknown outcome: the write may or may not have happened. */
export function asUnknown(result: ModelResult): ModelResult {
  return { ...result, status: 'unknown', execution: { ...result.execution, outcome: 'unknown' } };
}
