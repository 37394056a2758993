import { argumentsPreview } from '../src/contract/approval-preview.js';
import { requestDigest } from '../src/contract/bindings.js';
import { callRedactor } from '../src/contract/call-redactor.js';
import type { AnyToolImplementation, ToolEffect } from '../src/contract/tool-spec.js';
import type { Redaction } from '../src/contract/redaction.js';
import type { CallIdentity } from '../src/contract/call-identity.js';

/** A secret-free description of a call, for approvers and the UI. */
export interface CallPreview {
  readonly tool: string;
  readonly effect: ToolEffect;
  /**
   * The validated arguments (the ones the request digest covers), each hidden field shown as a marker at its place
   * (see `argumentsPreview`).
   */
  readonly arguments: unknown;
  /** Where something was hidden and why: the digest covers these too, though the approver cannot see them. */
  readonly hidden: readonly Redaction[];
  readonly requestSha256: string;
}

/**
 * What an approver is shown of a call, and the digest a decision on it is bound to: both over the arguments the
 * input layer accepted (`digestArguments`), so what is digested is what the preview shows. The one place both are
 * made: the approval request's checks and the record written for the approver must agree to the byte.
 */
export function callPreview(
  tool: AnyToolImplementation,
  identity: CallIdentity,
  digestArguments: unknown,
): CallPreview {
  const requestSha256 = requestDigest(identity.principal, tool, digestArguments);
  return {
    tool: tool.name,
    effect: tool.effect,
    ...argumentsPreview(digestArguments, callRedactor(tool, identity), tool.visibleToApprovers),
    requestSha256,
  };
}
