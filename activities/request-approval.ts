import { catalogFailure } from '../src/contract/call-failure.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import { checkBeforeHandler, executeTool, failedExecution, type ToolExecution } from '../src/contract/execute-tool.js';
import { recordableContext } from '../src/contract/funnel/recordable-context.js';
import { activityExecutionContext } from './call-context.js';
import { AUDIT_ATTEMPT_BASE } from './audit-attempt.js';
import { callOwnership } from './call-ownership.js';
import { callPreview, type CallPreview } from './call-preview.js';
import { recordRefusal } from './refused-call.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import type { ToolCallResult } from './tool-activity.js';

/** Input of the request-approval activity: the call that begins to wait, the tool's revision, and how long it waits. */
export interface RequestApprovalInput {
  readonly identity: CallIdentity;
  /** The revision of the tool workflow code decided the call by (see `ToolFacts.revision`). */
  readonly revision: string;
  readonly waitMs: number;
}

/** What the worker recorded for the approver: what they see, the digest they sign, and the times the call waits by. */
export interface ApprovalRecorded {
  readonly kind: 'recorded';
  readonly requestSha256: string;
  readonly preview: CallPreview;
  readonly requestedAt: string;
  readonly expiresAt: string;
}

/** The request was recorded, or the call was refused before any person was asked (with its audited result). */
export type ApprovalRequested = ApprovalRecorded | { readonly kind: 'refused'; readonly result: ToolCallResult };

/**
 * The one worker step before a call runs, for a tool a person decides: checks the call as its tool activity will —
 * the tool and its revision, the call's identity (it must belong to this workflow, see `callOwnership`), the
 * arguments, a cursor, `authorize` — and refuses, audited, what would not run, before anyone is asked; then records
 * the request in the store for the approver (see `ApprovalRequest`): what they decide on is what the worker wrote,
 * never what a workflow answers to a query. The workflow id and run id are the activity's own, the preview and digest
 * are computed here. Idempotent: a retry returns the recorded request.
 */
export function createRequestApproval(
  runtime: ToolRuntime,
): (input: RequestApprovalInput) => Promise<ApprovalRequested> {
  return async ({ identity, revision, waitMs }) => {
    const ctx = activityExecutionContext(identity, AUDIT_ATTEMPT_BASE.settled, hostKeysOf(runtime));
    const refuse = async (execution: ToolExecution): Promise<ApprovalRequested> => ({
      kind: 'refused',
      result: await recordRefusal(runtime, execution, ctx.temporal?.workflowId ?? 'none'),
    });
    if (!runtime.registry.has(identity.tool))
      return refuse(await runtime.registry.execute(identity.tool, identity.args, ctx));
    const tool = runtime.registry.get(identity.tool);
    // Another call's identity: refused before anything is recorded under its key or audit id.
    const owner = callOwnership(tool, identity, ['own_workflow']);
    if (owner === null)
      return {
        kind: 'refused',
        result: {
          modelResult: failedExecution(
            tool,
            ctx,
            catalogFailure('PERMISSION_DENIED', 'input', { reason: 'foreign_call' }),
            identity.args,
          ).modelResult,
          auditRef: null,
        },
      };
    // The revision covers whether the tool requires approval: a worker that disagrees with the workflow runs nothing.
    if (revision !== tool.facts.revision || !tool.requiresApproval)
      return refuse(
        failedExecution(
          tool,
          ctx,
          catalogFailure('TOOL_REVISION_UNSERVED', 'input', {
            requested: revision.slice(0, 80),
            served: tool.facts.revision,
          }),
          identity.args,
        ),
      );
    // A caller or key the audit cannot record (an unbounded argument in the business key, a split surrogate pair): the
    // funnel refuses the call before its handler, as it would inside the tool activity.
    if (recordableContext(ctx).unrecordable.length > 0) return refuse(await executeTool(tool, identity.args, ctx));
    const checked = await checkBeforeHandler(tool, identity.args, ctx);
    if (checked.kind === 'refused') return refuse(checked.execution);
    // What is digested is what the preview shows: the validated arguments (as sent, when the schema's output is not JSON).
    const preview = callPreview(tool, identity, checked.digestArguments);
    const { requestSha256, ...shown } = preview;
    const request = await runtime.store.recordApprovalRequest({
      ...owner.running,
      callId: identity.callId,
      ...shown,
      requestSha256,
      waitMs,
    });
    return {
      kind: 'recorded',
      requestSha256: request.requestSha256,
      preview,
      requestedAt: request.requestedAt,
      expiresAt: request.expiresAt,
    };
  };
}
