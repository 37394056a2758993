import { verifyAudit, type AuditVerification } from './bindings.js';
import type { AnyToolImplementation } from './tool-spec.js';
import { checkArguments, type ToolExecution } from './execute-tool.js';
import type { ExecutionContext } from './execution-context.js';
import { recordableContext } from './funnel/recordable-context.js';

/**
 * Re-checks an execution at the last hop, before its model result is serialized for anyone (seed 001: the adapter
 * validates again and recomputes all three bindings from the current trusted principal, call and registry spec):
 * the audit's request, result and call bindings are recomputed from what the caller itself trusts — the tool as
 * registered, the arguments it sent, its own context — never taken from the execution. A result swapped with
 * another call's, a result for other arguments or another caller, one edited on its way, or one bound to a provider
 * revision the host does not accept (`ctx.acceptedProviders`) fails. Trusted values are taken as the audit records
 * them (see `recordableContext`).
 */
export function verifyExecution(
  tool: AnyToolImplementation,
  rawArgs: unknown,
  ctx: ExecutionContext,
  execution: ToolExecution,
): AuditVerification {
  const { ctx: recorded } = recordableContext(ctx);
  return verifyAudit({
    modelResult: execution.modelResult,
    audit: execution.audit,
    trusted: {
      principal: recorded.principal,
      tool: { name: tool.name, revisions: tool.revisions },
      arguments: checkArguments(tool, rawArgs).digestArguments,
      provider: recorded.provider,
      callId: recorded.callId,
      operationId: recorded.operationId,
      idempotencyKey: recorded.idempotencyKey,
      ...(ctx.principalKey === undefined ? {} : { principalKey: ctx.principalKey }),
    },
    ...(ctx.acceptedProviders === undefined ? {} : { acceptedProviders: ctx.acceptedProviders }),
  });
}
