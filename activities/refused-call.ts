import type { ToolExecution } from '../src/contract/execute-tool.js';
import { recordExecution } from './record-execution.js';
import type { ToolRuntime } from './runtime.js';
import type { ToolCallResult } from './tool-activity.js';

/**
 * Records a call refused before anything ran (an unknown tool, arguments that cannot be read, a caller not allowed):
 * it still claims and releases its key, so its audit row is recorded like any other attempt's. The key and call id
 * claimed are the audit's — as recorded, which a store can always hold. A key recorded under another request gets no
 * audit row here (the refusal is for this caller only).
 */
export async function recordRefusal(
  runtime: ToolRuntime,
  execution: ToolExecution,
  workflowId: string,
): Promise<ToolCallResult> {
  const { audit, modelResult } = execution;
  const claim = await runtime.store.claimIdempotencyKey({
    idempotencyKey: audit.idempotency_key,
    requestSha256: audit.bindings.request_sha256,
    tool: modelResult.tool,
    callId: audit.call_id,
    workflowId,
  });
  const auditRef = claim.kind === 'conflict' ? null : await recordExecution(runtime.store, execution);
  return { modelResult, auditRef };
}
