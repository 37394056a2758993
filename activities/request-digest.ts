import { requestDigest } from '../src/contract/bindings.js';
import type { AnyToolDefinition, Principal } from '../src/contract/define-tool.js';
import { checkArguments } from '../src/contract/execute-tool.js';

/**
 * The request digest a call's ledger row is keyed on, exactly as the funnel will compute it for the audit: over the
 * arguments the input layer accepts (as sent when it refuses them, or when the schema's output is not JSON). The claim
 * and the reconciliation's fence (which may write the row for a dispatch that never claimed it) agree on it. Never
 * throws for anything the arguments or the tool's schema do (a schema that throws, a value without a canonical form):
 * that would fail the activity before the funnel could refuse the call with its catalogued result. `principal` must be
 * recordable as given (see `recordableContext`).
 */
export function intendedRequestDigest(tool: AnyToolDefinition, principal: Principal, rawArgs: unknown): string {
  return requestDigest(principal, tool, checkArguments(tool, rawArgs).digestArguments);
}
