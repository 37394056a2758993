import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { DecisionRecord } from '../src/contract/decision-record.js';
import {
  checkDecision,
  type DecisionCheck,
  type DecisionSubject,
  type DecisionTarget,
  type SubmittedDecision,
} from './check-decision.js';
import type { ToolRuntime } from './runtime.js';

/** Input of the verify-decision activity: the decision as sent, and what the workflow waits for. */
export interface VerifyDecisionInput {
  readonly submitted: SubmittedDecision;
  /** The pending call or the escalated key, from workflow state. */
  readonly target: DecisionTarget;
}

/**
 * A decision this activity accepted, as workflow code passes it on to the activity that acts on it (the tool
 * activity, the settle activity), which checks it again: the record, and the token it came with.
 */
export interface VerifiedDecision {
  /** The signed token; `null` for a decision taken unauthenticated. */
  readonly token: string | null;
  readonly decision: DecisionRecord;
}

/**
 * Checks one decision against the worker's authenticator and policy (see `checkDecision`), for the workflow run
 * that asks: only a decision this activity accepted decides anything. Workflow code cannot verify a signature (the
 * sandbox has no crypto), so it runs this as a local activity and the verdict is recorded in its history.
 */
export function createVerifyDecision(runtime: ToolRuntime): (input: VerifyDecisionInput) => Promise<DecisionCheck> {
  return async ({ submitted, target }) => {
    const execution = Context.current().info.workflowExecution;
    if (execution === undefined) return { ok: false, reason: 'binding_mismatch' };
    const run = { workflowId: execution.workflowId, runId: execution.runId };
    // Spelled per kind: a spread over a union does not narrow to one of its members.
    const subject: DecisionSubject = target.kind === 'approval' ? { ...target, ...run } : { ...target, ...run };
    return checkDecision(runtime.decisions, submitted, subject, {
      now: Date.now(),
      mintDecisionId: () => `dec_${randomBytes(16).toString('base64url')}`,
    });
  };
}
