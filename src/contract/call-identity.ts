// One tool call's identity — its operation id and idempotency key — derived by one function that workflow code (which
// fixes it before anything runs) and the worker (which derives it again from the activity's own workflow and refuses a
// call whose identity disagrees) both use.
import type { ProviderContext } from './bindings.js';
import { businessKeyOf } from './business-key.js';
import { businessIdempotencyKey } from './idempotency-key.js';
import type { ToolFacts } from './tool-facts.js';
import type { Principal } from './tool-handler.js';

/**
 * Everything that identifies one tool call. Trusted: built by workflow code from its own state, never from model
 * output, and checked again by the worker. Shared by every activity that builds a result for the call.
 */
export interface CallIdentity {
  readonly tool: string;
  readonly args: unknown;
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  readonly principal: Principal;
  readonly provider: ProviderContext;
}

/** A call before its identity is fixed. */
export type CallRequest = Omit<CallIdentity, 'operationId' | 'idempotencyKey'>;

/**
 * The identity of a call made in workflow `workflowId`: its operation id is `<workflow id>:<call id>`, and so is its
 * idempotency key unless the tool declares a business key, which is then scoped by tool and tenant. Arguments whose
 * business key cannot be read get the unkeyed identity and the reason, so the call can still be refused and audited.
 */
export function identifyCall(
  facts: Pick<ToolFacts, 'businessKey' | 'keyScope'>,
  call: CallRequest,
  workflowId: string,
):
  | { readonly ok: true; readonly identity: CallIdentity }
  | { readonly ok: false; readonly identity: CallIdentity; readonly reason: string } {
  const operationId = `${workflowId}:${call.callId}`;
  // The call keeps the name it was made under (a renamed tool's earlier name is served as itself, so workers that
  // know only that name can still serve it); its key is scoped by the tool's `keyScope`, one for all its names.
  const unkeyed: CallIdentity = { ...call, operationId, idempotencyKey: operationId };
  if (facts.businessKey === null) return { ok: true, identity: unkeyed };
  const key = businessKeyOf(call.args, facts.businessKey);
  if (!key.ok) return { ok: false, identity: unkeyed, reason: key.reason };
  return {
    ok: true,
    identity: { ...unkeyed, idempotencyKey: businessIdempotencyKey(facts.keyScope, call.principal.tenant, key.key) },
  };
}
