import { requestDigest } from '../src/contract/bindings.js';
import type { Principal } from '../src/contract/tool-handler.js';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import { checkArguments } from '../src/contract/execute-tool.js';

/** The request a tool activity is about to run, as the funnel will judge it. */
export interface IntendedRequest {
  /** The arguments the input layer accepts (as sent when it refuses them); a business key is derived from these. */
  readonly args: unknown;
  readonly requestSha256: string;
}

/**
 * The request about to run, digested exactly as the funnel will compute it for the audit: over the arguments the
 * input layer accepts (as sent when it refuses them, or when the schema's output is not JSON). The ledger row is keyed
 * on its digest — the claim and the reconciliation's fence (which may write the row for a dispatch that never claimed
 * it) agree on it — and an approval must be for it. Never throws for anything the arguments or the tool's schema do (a
 * schema that throws, a value without a canonical form): that would fail the activity before the funnel could refuse
 * the call with its catalogued result. `principal` must be recordable as given (see `recordableContext`).
 */
export function intendedRequest(tool: AnyToolImplementation, principal: Principal, rawArgs: unknown): IntendedRequest {
  const checked = checkArguments(tool, rawArgs);
  return {
    args: checked.ok ? checked.arguments : rawArgs,
    requestSha256: requestDigest(principal, tool, checked.digestArguments),
  };
}

/** The digest of {@link intendedRequest}. */
export function intendedRequestDigest(tool: AnyToolImplementation, principal: Principal, rawArgs: unknown): string {
  return intendedRequest(tool, principal, rawArgs).requestSha256;
}
