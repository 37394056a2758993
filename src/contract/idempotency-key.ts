import { tenantRef } from './tenant-ref.js';

/**
 * The name a tool's business keys are scoped by: its `idempotencyScope`, else its name — the same for every name the
 * tool is called by (a call under an alias is looked up as the tool itself, see `ToolRegistry`).
 */
export function idempotencyScopeOf(tool: { readonly name: string; readonly idempotencyScope?: string | undefined }): string {
  return tool.idempotencyScope ?? tool.name;
}

/**
 * The idempotency key of a call whose tool derives a business key: `<tool>:<tenantRef>:<businessKey>`, the tenant
 * as its unkeyed reference (see `tenantRef` for why unkeyed). It is the ledger key, the seed of the reconciliation workflow id, and what the handler receives as `ctx.idempotencyKey` to
 * send upstream, so two tenants deriving the same business key never share a ledger row, a reconciliation or a
 * provider-side key.
 */
export function businessIdempotencyKey(toolName: string, tenant: string, businessKey: string): string {
  return `${toolName}:${tenantRef(tenant)}:${businessKey}`;
}
