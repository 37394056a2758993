import { checkArguments } from '../src/contract/execute-tool.js';
import type { CallIdentity } from './call-identity.js';
import { callOwnership } from './call-ownership.js';
import { callPreview } from './call-preview.js';
import type { ToolRuntime } from './runtime.js';

/** Input of the request-approval activity: the call that begins to wait, and how long it waits. */
export interface RequestApprovalInput {
  readonly identity: CallIdentity;
  readonly waitMs: number;
}

/**
 * What the worker recorded for the approver — the digest and the times the call waits by — or why it recorded
 * nothing (the call then takes no decision: it fails closed).
 */
export type ApprovalRequested =
  | { readonly kind: 'recorded'; readonly requestSha256: string; readonly requestedAt: string; readonly expiresAt: string }
  | { readonly kind: 'refused'; readonly reason: 'not_an_approval' | 'foreign_call' | 'invalid_arguments' };

/**
 * Records a call that begins to wait for approval in the store, for the approver (see `ApprovalRequest`): what they
 * decide on is what the worker wrote, never what a workflow answers to a query. The workflow id and run id are the
 * activity's own, the call must belong to that workflow (see `callOwnership`), and the preview and digest are computed
 * here from the call's arguments, exactly as the call's preparation computed them (`callPreview`). So a workflow can
 * only ever have a request recorded for a call of its own, showing what that call would run. Idempotent: a retry
 * returns the recorded request.
 */
export function createRequestApproval(runtime: ToolRuntime): (input: RequestApprovalInput) => Promise<ApprovalRequested> {
  return async ({ identity, waitMs }) => {
    const tool = runtime.registry.has(identity.tool) ? runtime.registry.get(identity.tool) : null;
    if (tool === null || !tool.requiresApproval) return { kind: 'refused', reason: 'not_an_approval' };
    const owner = callOwnership(tool, identity, ['own_workflow']);
    if (owner === null) return { kind: 'refused', reason: 'foreign_call' };
    const checked = checkArguments(tool, identity.args);
    if (!checked.ok) return { kind: 'refused', reason: 'invalid_arguments' };
    const { requestSha256, ...preview } = callPreview(tool, identity, checked.digestArguments);
    const request = await runtime.store.recordApprovalRequest({ ...owner.running, callId: identity.callId, ...preview, requestSha256, waitMs });
    return { kind: 'recorded', requestSha256: request.requestSha256, requestedAt: request.requestedAt, expiresAt: request.expiresAt };
  };
}
