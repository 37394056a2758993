import { condition, isCancellation, scheduleLocalActivity } from '@temporalio/workflow';
import type { DecisionCheck } from '../activities/check-decision.js';
import type { VerifyDecisionInput } from '../activities/verify-decision.js';
import type { DecisionRecord } from '../src/contract/decision-record.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import type { DecisionRefusal } from '../src/wire/decisions.js';
import { VERIFY_DECISION_ACTIVITY } from '../src/wire/names.js';

/** What the sender of a decision is told: it decided the call, or why not (and, after a lost race, who won). */
export type DecisionAnswer =
  | { readonly accepted: true; readonly decision: DecisionRecord }
  | { readonly accepted: false; readonly reason: DecisionRefusal; readonly winner: DecisionRecord | null };

/** A decision that passed the handler's checks and waits, in arrival order, for the worker's verdict. */
export interface QueuedDecision<D> {
  readonly ticket: number;
  readonly submitted: D;
  /** An update waits for the answer; a signal's sender cannot be told. */
  readonly awaited: boolean;
}

/** Most decisions one call keeps waiting for verification; more are refused as `too_many` (a flood costs nothing). */
export const MAX_QUEUED_DECISIONS = 100;
/** Refused decisions kept for the queries, per call and per workflow (the newest ones; older ones stay in history). */
export const MAX_REFUSALS_KEPT = 20;

// Per workflow execution (module state is isolated per run in the sandbox).
let tickets = 0;
const answers = new Map<number, DecisionAnswer>();

/** Queues `submitted` unless `queue` is full; the ticket identifies its answer. */
export function enqueue<D>(queue: QueuedDecision<D>[], submitted: D, awaited: boolean): QueuedDecision<D> | null {
  if (queue.length >= MAX_QUEUED_DECISIONS) return null;
  tickets += 1;
  const queued = { ticket: tickets, submitted, awaited };
  queue.push(queued);
  return queued;
}

/** Gives a queued decision its answer (kept only when an update waits for it). */
export function answer(queued: QueuedDecision<unknown>, given: DecisionAnswer): void {
  if (queued.awaited) answers.set(queued.ticket, given);
}

/** Waits for the answer to a queued decision (an update handler's wait). */
export async function answerTo(queued: QueuedDecision<unknown>): Promise<DecisionAnswer> {
  await condition(() => answers.has(queued.ticket));
  const given = answers.get(queued.ticket) as DecisionAnswer;
  answers.delete(queued.ticket);
  return given;
}

/** A refusal, as an answer. */
export function refusal(reason: DecisionRefusal, winner: DecisionRecord | null = null): DecisionAnswer {
  return { accepted: false, reason, winner };
}

/** Appends to a bounded log, dropping the oldest entries. */
export function keepLatest<T>(log: T[], entry: T): void {
  log.push(entry);
  if (log.length > MAX_REFUSALS_KEPT) log.splice(0, log.length - MAX_REFUSALS_KEPT);
}

/**
 * Asks the worker whether a decision counts (the verify-decision local activity: the sandbox cannot check a
 * signature). The verdict is recorded in history, so replay takes the same decision. A worker that cannot verify
 * (its authenticator keeps failing) refuses the decision rather than failing the workflow; the sender may retry.
 */
export async function verifyDecision(input: VerifyDecisionInput): Promise<DecisionCheck> {
  try {
    return await scheduleLocalActivity<DecisionCheck>(VERIFY_DECISION_ACTIVITY, [input], {
      startToCloseTimeout: '30s',
      retry: { maximumAttempts: 3, nonRetryableErrorTypes: nonRetryableCodes() },
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { ok: false, reason: 'verification_failed' };
  }
}
