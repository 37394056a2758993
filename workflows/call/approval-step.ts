// The one step before dispatch that asks the worker anything, and only for a tool a person decides: the worker checks
// the call (arguments, authorization, revision), computes what the approver sees and the digest they sign, and records
// it for them; then the call waits for a signed decision bound to that digest and this run.
import { isCancellation, scheduleLocalActivity } from '@temporalio/workflow';
import type { ApprovalRequested, RequestApprovalInput } from '../../activities/request-approval.js';
import type { CallIdentity } from '../../src/contract/call-identity.js';
import { nonRetryableCodes } from '../../src/contract/error-catalog.js';
import type { ToolFacts } from '../../src/contract/tool-facts.js';
import { REQUEST_APPROVAL_ACTIVITY } from '../../src/wire/names.js';
import { awaitApproval } from '../approvals.js';
import { settle } from '../settle.js';
import type { CallState, StepOutcome } from './pipeline.js';

/** How long a person may take unless the call says otherwise: a day. */
const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 3600_000;

/** For a tool that requires approval: the worker's check and record, then the decision; any other call passes. */
export async function approveIfRequired(state: CallState): Promise<StepOutcome> {
  const facts = state.facts as ToolFacts;
  if (!facts.requiresApproval) return { next: state };
  const identity = state.identity as CallIdentity;
  const waitMs = state.options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const requested = await requestApproval({ identity, revision: facts.revision, waitMs });
  // A worker that cannot record the request: nobody could see what they would approve, so the call fails closed.
  if (requested === null) return { done: await settle(identity, { kind: 'approval_expired', invalidDecisions: 0 }) };
  if (requested.kind === 'refused') return { done: requested.result };
  const outcome = await awaitApproval({ identity, ...requested });
  if (outcome.kind === 'rejected')
    return { done: await settle(identity, { kind: 'approval_rejected', rejection: outcome.verified }) };
  if (outcome.kind === 'expired')
    return { done: await settle(identity, { kind: 'approval_expired', invalidDecisions: outcome.invalidDecisions }) };
  return {
    next: {
      ...state,
      approval: outcome.verified,
      summary: previewSummary(identity.tool, facts, requested.preview.arguments),
    },
  };
}

/** The request-approval local activity; `null` when the worker could not record the request. */
async function requestApproval(input: RequestApprovalInput): Promise<ApprovalRequested | null> {
  try {
    return await scheduleLocalActivity<ApprovalRequested>(REQUEST_APPROVAL_ACTIVITY, [input], {
      startToCloseTimeout: '30s',
      retry: { maximumAttempts: 5, nonRetryableErrorTypes: nonRetryableCodes() },
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return null;
  }
}

/** One line for the UI: tool, effect and the approver's secret-free view of the arguments, clipped. */
function previewSummary(tool: string, facts: ToolFacts, shownArguments: unknown): string {
  let args: string;
  try {
    args = JSON.stringify(shownArguments) ?? '';
  } catch {
    args = '';
  }
  const clipped = args.length > 120 ? `${args.slice(0, 119)}…` : args;
  return `${tool} [${facts.effect}] ${clipped}`;
}
