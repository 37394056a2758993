import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { signDecision } from '../decisions/sign.js';
import type { DecisionKey } from '../decisions/keys.js';
import type { ToolStore } from '../store/index.js';
import {
  approvalToSign,
  type ApprovalDecision,
  type ApprovalDecisions,
  type DecisionRecord,
  type NotSignable,
} from '../temporal/index.js';
import { submitApprovalDecision } from '../temporal/approval-client.js';
import { APPROVAL_DECISIONS_QUERY } from '../wire/names.js';
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
 * Approves or rejects a pending call. It finds what to sign with `approvalToSign` — the workflow id the operator
 * named, the run id the server gives for it, and call, digest and preview from the request the worker recorded in the
 * store, which the workflow must list as pending exactly so (never from the workflow's answer alone) — and refuses,
 * with the reason, a call that is not pending, a workflow whose answer disagrees with the record, or a digest that is
 * not the recorded request's. It signs the decision with `signingKey` for exactly that run, call and digest
 * (unsigned without a key: only a worker taking unauthenticated decisions accepts that) and sends it through the
 * approval update to that run. A decision the workflow does not take — another one won, or it did not verify — is a
 * `refused` CliError that says why and, after a lost race, names the winner.
 */
export async function decideApproval(
  client: Client,
  store: ToolStore,
  input: DecideInput,
  signingKey: DecisionKey | null,
): Promise<DecideOutput> {
  try {
    const found = await approvalToSign(client, store, input.workflowId, input.callId);
    if (!found.ok) throw await notSignable(client, input, found.reason);
    const { runId } = found.approval;
    const { requestSha256 } = found.approval.preview;
    if (requestSha256 !== input.requestSha256) {
      throw new CliError(
        `call ${input.callId} of workflow ${input.workflowId} waits for a decision on request ${requestSha256}, not ${input.requestSha256}: check its arguments with \`tool-contract pending ${input.workflowId}\``,
        EXIT_CODES.refused,
      );
    }
    const token =
      signingKey === null
        ? undefined
        : signDecision(
            {
              kind: 'approval',
              workflowId: input.workflowId,
              runId,
              callId: input.callId,
              requestSha256,
              decision: input.decision,
              decidedBy: input.approver,
              ...(input.reason === undefined ? {} : { note: input.reason }),
            },
            signingKey,
          );
    const decision: ApprovalDecision = {
      callId: input.callId,
      requestSha256,
      decision: input.decision,
      approver: input.approver,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(token === undefined ? {} : { token }),
    };
    const answer = await submitApprovalDecision(client, input.workflowId, decision, runId).catch(
      async (error: unknown) => {
        // The workflow closed between the look-up and the decision: another decision won, and its record says which.
        if (closedMeanwhile(error)) throw await notPending(client, input);
        throw error;
      },
    );
    if (!answer.accepted)
      throw new CliError(
        `workflow ${input.workflowId} did not take this decision on ${input.callId}: ${refusedBecause(answer)}`,
        EXIT_CODES.refused,
      );
    return {
      workflowId: input.workflowId,
      callId: input.callId,
      decision: input.decision,
      accepted: true,
      recorded: answer.decision,
    };
  } catch (error) {
    throw toCliError(error, input.workflowId);
  }
}

/** The server refused the update because the workflow closed as (or before) it arrived. */
function closedMeanwhile(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  return (
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === 'UnprocessedUpdate'
  );
}

/** Why there is nothing to sign for the call: the workflow's answer disagrees with the record, or it is not pending. */
async function notSignable(client: Client, input: DecideInput, reason: NotSignable): Promise<CliError> {
  if (reason !== 'disagrees') return notPending(client, input);
  return new CliError(
    `call ${input.callId} of workflow ${input.workflowId}: the workflow lists another request than the one its worker recorded for the approver; nothing was signed`,
    EXIT_CODES.refused,
  );
}

/** Why the call is not pending: already decided (by whom), or never was. */
async function notPending(client: Client, input: DecideInput): Promise<CliError> {
  const decisions = await client.workflow
    .getHandle(input.workflowId)
    .query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY)
    .catch(() => null);
  const decided = decisions?.decided.find((entry) => entry.callId === input.callId);
  const why =
    decided === undefined
      ? 'it is not waiting for approval (see `tool-contract pending`)'
      : `it was already decided: ${describeDecision(decided.decision)}`;
  return new CliError(
    `call ${input.callId} of workflow ${input.workflowId} takes no decision now: ${why}`,
    EXIT_CODES.refused,
  );
}
