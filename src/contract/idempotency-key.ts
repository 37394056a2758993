import { tenantRef } from './tenant-ref.js';

/**
 * The idempotency key of a call whose tool derives a business key: `<tool>:<tenantRef>:<businessKey>`, the tenant
 * as its unkeyed reference (see `tenantRef` for why unkeyed). It is the ledger key, the seed of the reconciliation workflow id, and what the handler receives as `ctx.idempotencyKey` to
 * send upstream, so two tenants deriving the same business key never share a ledger row, a reconciliation or a
 * provider-side key.
 */
export function businessIdempotencyKey(toolName: string, tenant: string, businessKey: string): string {
  return `${toolName}:${tenantRef(tenant)}:${businessKey}`;
}
