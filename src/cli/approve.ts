import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { signDecision } from '../decisions/sign.js';
import type { DecisionKey } from '../decisions/keys.js';
import type { ApprovalDecision, ApprovalDecisions, DecisionRecord, PendingApproval } from '../temporal/index.js';
import { submitApprovalDecision } from '../temporal/approval-client.js';
import { APPROVAL_DECISIONS_QUERY, PENDING_APPROVALS_QUERY } from '../wire/names.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { describeDecision, refusedBecause } from './decision-text.js';
import { toCliError } from './temporal-errors.js';

/** What `approve` / `reject` need: the call, the digest of the request the approver saw, and who decides. */
export interface DecideInput {
  readonly workflowId: string;
  readonly callId: string;
  readonly requestSha256: string;
  readonly decision: ApprovalDecision['decision'];
  readonly approver: string;
  readonly reason?: string;
}

/** What the CLI prints after its decision took effect. */
export interface DecideOutput {
  readonly workflowId: string;
  readonly callId: string;
  readonly decision: ApprovalDecision['decision'];
  readonly accepted: true;
  /** The decision as the workflow recorded it: who, how authenticated, when, its id. */
  readonly recorded: DecisionRecord;
}

/**
 * Approves or rejects a pending call. It reads the call first (so it refuses, with the reason, a call that is not
 * pending or a digest that is not the pending request's), signs the decision with `signingKey` for exactly that
 * workflow run, call and digest (unsigned without a key: only a worker without keys accepts that), and sends it
 * through the approval update. A decision the workflow does not take — another one won, or it did not verify — is a
 * `refused` CliError that says why and, after a lost race, names the winner.
 */
export async function decideApproval(client: Client, input: DecideInput, signingKey: DecisionKey | null): Promise<DecideOutput> {
  const handle = client.workflow.getHandle(input.workflowId);
  try {
    const pending = (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).find((entry) => entry.callId === input.callId);
    if (pending === undefined) throw await notPending(client, input);
    if (pending.preview.requestSha256 !== input.requestSha256) {
      throw new CliError(
        `call ${input.callId} of workflow ${input.workflowId} waits for a decision on request ${pending.preview.requestSha256}, not ${input.requestSha256}: check its arguments with \`tool-contract pending ${input.workflowId}\``,
        EXIT_CODES.refused,
      );
    }
    const token =
      signingKey === null
        ? undefined
        : signDecision(
            { kind: 'approval', workflowId: pending.workflowId, runId: pending.runId, callId: input.callId, requestSha256: input.requestSha256, decision: input.decision, decidedBy: input.approver, ...(input.reason === undefined ? {} : { note: input.reason }) },
            signingKey,
          );
    const answer = await submitApprovalDecision(client, input.workflowId, {
      callId: input.callId,
      requestSha256: input.requestSha256,
      decision: input.decision,
      approver: input.approver,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(token === undefined ? {} : { token }),
    }).catch(async (error: unknown) => {
      // The workflow closed between the look-up and the decision: another decision won, and its record says which.
      if (closedMeanwhile(error)) throw await notPending(client, input);
      throw error;
    });
    if (!answer.accepted) throw new CliError(`workflow ${input.workflowId} did not take this decision on ${input.callId}: ${refusedBecause(answer)}`, EXIT_CODES.refused);
    return { workflowId: input.workflowId, callId: input.callId, decision: input.decision, accepted: true, recorded: answer.decision };
  } catch (error) {
    throw toCliError(error, input.workflowId);
  }
}

/** The server refused the update because the workflow closed as (or before) it arrived. */
function closedMeanwhile(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  return error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === 'UnprocessedUpdate';
}

/** Why the call is not pending: already decided (by whom), or never was. */
async function notPending(client: Client, input: DecideInput): Promise<CliError> {
  const decisions = await client.workflow.getHandle(input.workflowId).query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY).catch(() => null);
  const decided = decisions?.decided.find((entry) => entry.callId === input.callId);
  const why = decided === undefined ? 'it is not waiting for approval (see `tool-contract pending`)' : `it was already decided: ${describeDecision(decided.decision)}`;
  return new CliError(`call ${input.callId} of workflow ${input.workflowId} takes no decision now: ${why}`, EXIT_CODES.refused);
}
