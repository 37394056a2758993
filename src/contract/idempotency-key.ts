import { digestJson } from './sha256.js';

/** Hex digits of the tenant reference in a business key: 128 bits, so neither chance nor a chosen name collides. */
const TENANT_REF_HEX_DIGITS = 32;

/**
 * The tenant's part of a business idempotency key: a fixed-length digest, so the key never shows the tenant's name
 * and no tenant name can run into the business key after it (`a:b` + `c` vs `a` + `b:c`).
 *
 * Unkeyed on purpose: an idempotency key must stay the same for the same business intent for as long as the ledger
 * and the provider remember it. A digest under the principal key would change whenever that key is introduced or
 * rotated, which is exactly when a duplicate side effect would slip through.
 */
export function tenantRef(tenant: string): string {
  return digestJson({ domain: 'ttc.tenant.v1', tenant }).slice(0, TENANT_REF_HEX_DIGITS);
}

/**
 * The name a tool's business keys are scoped by: its `idempotencyScope`, else its name — the same for every name the
 * tool is called by (a call under an alias is looked up as the tool itself, see `ToolRegistry`).
 */
export function idempotencyScopeOf(tool: { readonly name: string; readonly idempotencyScope?: string | undefined }): string {
  return tool.idempotencyScope ?? tool.name;
}

/**
 * The idempotency key of a call whose tool derives a business key: `<tool>:<tenantRef>:<businessKey>`. It is the
 * ledger key, the seed of the reconciliation workflow id, and what the handler receives as `ctx.idempotencyKey` to
 * send upstream, so two tenants deriving the same business key never share a ledger row, a reconciliation or a
 * provider-side key.
 */
export function businessIdempotencyKey(toolName: string, tenant: string, businessKey: string): string {
  return `${toolName}:${tenantRef(tenant)}:${businessKey}`;
}
