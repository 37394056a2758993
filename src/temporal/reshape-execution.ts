import { callBindingDigest, resultDigest } from '../contract/bindings.js';
import type { ToolExecution } from '../contract/execute-tool.js';
import type { ExecutionContext } from '../contract/execution-context.js';
import type { AnyToolDefinition } from '../contract/define-tool.js';
import { modelResultSchema, type ModelResult } from '../contract/model-result.js';

/**
 * Rewrites the model result of an execution (a new delivery, a known side-effect outcome) and re-derives every
 * audit field that depends on it — status, error code, `result_sha256` and `call_binding_sha256` — so the audit
 * still verifies. The request digest is kept: the business intent did not change.
 */
export function reshapeExecution(
  execution: ToolExecution,
  change: (modelResult: ModelResult) => ModelResult,
  trusted: { tool: AnyToolDefinition; ctx: ExecutionContext },
): ToolExecution {
  const modelResult = modelResultSchema.parse(change(execution.modelResult));
  const requestSha256 = execution.audit.bindings.request_sha256;
  const resultSha256 = resultDigest(modelResult);
  const callBinding = callBindingDigest({
    provider: trusted.ctx.provider,
    callId: trusted.ctx.callId,
    operationId: trusted.ctx.operationId,
    idempotencyKey: trusted.ctx.idempotencyKey,
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
