import { requestDigest } from '../src/contract/bindings.js';
import type { AnyToolDefinition, Principal } from '../src/contract/define-tool.js';

/**
 * The request digest a call's ledger row is keyed on: over the validated arguments, as the funnel will compute it.
 * The claim and the reconciliation's fence (which may write the row for a dispatch that never claimed it) agree on it.
 */
export function intendedRequestDigest(tool: AnyToolDefinition, principal: Principal, rawArgs: unknown): string {
  const parsed = (tool.input as { safeParse: (value: unknown) => { success: boolean; data?: unknown } }).safeParse(rawArgs);
  if (parsed.success) {
    try {
      return requestDigest(principal, tool, parsed.data);
    } catch {
      // Arguments whose parsed form is not JSON are digested as sent, like the funnel does.
    }
  }
  return requestDigest(principal, tool, rawArgs);
}
