import { computeBindings, type TrustedCallInputs } from '../contract/bindings.js';
import type { ToolExecution } from '../contract/execute-tool.js';
import type { ExecutionContext } from '../contract/execution-context.js';
import type { AnyToolDefinition } from '../contract/define-tool.js';
import { modelResultSchema, type ModelResult } from '../contract/model-result.js';

/**
 * Rewrites the model result of an execution (a new delivery, a known side-effect outcome) and re-derives every
 * audit field that depends on it — status, error code and the result/call bindings — so the audit still verifies.
 * `digestArgs` must be the arguments the original request digest was computed over.
 */
export function reshapeExecution(
  execution: ToolExecution,
  change: (modelResult: ModelResult) => ModelResult,
  trusted: { tool: AnyToolDefinition; ctx: ExecutionContext; digestArgs: unknown },
): ToolExecution {
  const modelResult = modelResultSchema.parse(change(execution.modelResult));
  const inputs: TrustedCallInputs = {
    principal: trusted.ctx.principal,
    tool: { name: trusted.tool.name, revisions: trusted.tool.revisions },
    arguments: trusted.digestArgs,
    provider: trusted.ctx.provider,
    callId: trusted.ctx.callId,
    operationId: trusted.ctx.operationId,
    idempotencyKey: trusted.ctx.idempotencyKey,
  };
  const bindings = computeBindings(inputs, modelResult);
  if (bindings.request_sha256 !== execution.audit.bindings.request_sha256) {
    throw new Error('internal: reshaped execution does not bind to the same request');
  }
  return {
    ...execution,
    modelResult,
    audit: { ...execution.audit, status: modelResult.status, error_code: modelResult.error?.code ?? null, bindings },
  };
}
