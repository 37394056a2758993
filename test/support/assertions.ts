import assert from 'node:assert/strict';
import { modelResultSchema } from '../../src/index.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { type ToolExecution } from '../../src/contract/execute-tool.js';

/**
 * Asserts that nothing a model must not see is in the model result: the planted secrets, the caller's identity,
 * the idempotency key, the operation id and the binding digests. Checks the serialized form, so it also covers
 * values hidden in keys, quotes, untrusted text and error messages.
 */
export function assertNothingSensitive(
  execution: ToolExecution,
  ctx: ExecutionContext,
  planted: readonly string[] = [],
): void {
  const text = JSON.stringify(execution.modelResult);
  const forbidden = [
    ...planted,
    ctx.idempotencyKey,
    ctx.operationId,
    ctx.principal.tenant,
    ctx.principal.subject,
    execution.audit.bindings.request_sha256,
    execution.audit.bindings.call_binding_sha256,
    execution.audit.principal_ref,
  ];
  for (const value of forbidden) assert.ok(!text.includes(value), `model result leaks '${value.slice(0, 40)}'`);
  assert.ok(modelResultSchema.safeParse(execution.modelResult).success, 'model result violates tool-result.model.v1');
}

/** The error code of a result, or null. */
export function codeOf(execution: ToolExecution): string | null {
  return execution.modelResult.error?.code ?? null;
}
