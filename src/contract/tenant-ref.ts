import { digestJson } from './sha256.js';

/** Hex digits of a tenant reference: 128 bits, so neither chance nor a chosen name collides. */
const TENANT_REF_HEX_DIGITS = 32;

/**
 * The tenant as the package shows it wherever its name must not appear: in a business idempotency key (so the key
 * never shows the tenant and no tenant name can run into the business key after it, `a:b` + `c` vs `a` + `b:c`) and
 * as the task-queue fairness key (which Temporal stores unencrypted in history and its OpenTelemetry workflow
 * exporter copies onto every workflow span). One reference for both, so an operator can join them.
 *
 * Unkeyed on purpose: an idempotency key must stay the same for the same business intent for as long as the ledger
 * and the provider remember it. A digest under the principal key would change whenever that key is introduced or
 * rotated, which is exactly when a duplicate side effect would slip through. It also has to be computed inside the
 * workflow sandbox, where the worker's keys are not. The price: whoever can guess a tenant's name can confirm it
 * against the reference — it hides the name, it is no secret.
 */
export function tenantRef(tenant: string): string {
  return digestJson({ domain: 'ttc.tenant.v1', tenant }).slice(0, TENANT_REF_HEX_DIGITS);
}
