import { describeThrown } from '../src/contract/call-failure.js';
import { ToolError } from '../src/contract/tool-error.js';
import { callRedactor } from '../src/contract/call-redactor.js';
import { openDispatchFence, type ReconcileOutcome, type ToolOutput } from '../src/contract/tool-handler.js';
import { type AnyToolImplementation } from '../src/contract/tool-spec.js';
import { receiptReconciled } from '../src/contract/settled-results.js';
import type { SettleReconciliationInput } from '../src/store/reconciliation.js';
import { isStoreError } from '../src/store/store-error.js';
import { auditRefOf } from '../src/store/ledger.js';
import { auditIdOf } from '../src/contract/audit-id.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import { SDK_LOCAL_TIMEOUT_BUFFER_MS } from './attempt-deadline.js';
import { activityExecutionContext } from './call-context.js';
import { reportReconciliationStep } from './call-report.js';
import type { CallSpanRef } from './call-telemetry.js';
import { AUDIT_ATTEMPT_BASE } from './audit-attempt.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import { callOwnership } from './call-ownership.js';
import { recordOnce } from './record-execution.js';
import { hostKeysOf, type ToolRuntime } from './runtime.js';
import { intendedRequestDigest } from './request-digest.js';
import type { ToolCallResult } from './tool-activity.js';

/** Input of the reconcile query: which call, and which query this is (1-based; idempotent per number). */
export interface QueryOutcomeInput {
  readonly identity: CallIdentity;
  readonly attempt: number;
  /** Set to poll the job the call started by its handle (`tool.poll`) instead of asking by key (`tool.reconcile`). */
  readonly jobHandle?: string;
  /** The span of the call being reconciled, when its result carried one (telemetry links the query to it). */
  readonly callSpan?: CallSpanRef;
}

/** Longest reason of an `unknown` finding kept (in history and in the reconciliation record). */
export const MAX_FINDING_REASON_CHARS = 500;

/** What the authoritative system said about a key. */
export type OutcomeFinding =
  /** The write took effect; its output went through the funnel (`delivery: receipt_reconciled`). */
  | { readonly finding: 'committed'; readonly result: ToolCallResult }
  /**
   * The write did not happen; the reconciliation record is settled and the key released. `safeRetry`: this worker
   * allows the tool one more dispatch with the same key (`safeRetryTools`; the tool activity checks it again).
   */
  | { readonly finding: 'not_committed'; readonly safeRetry: boolean }
  | { readonly finding: 'unknown'; readonly reason: string }
  /** The tool can answer nothing about this call (no `reconcile`, and no `poll` for its job): a person must. */
  | { readonly finding: 'cannot_ask' };

/**
 * Input of the open step: the call and the run that dispatched the unknown attempt. The workflow the call belongs to
 * is the one its operation id names (see `callOwnership`), never an id the input gives.
 */
export interface OpenRoundInput {
  readonly identity: CallIdentity;
  readonly auditId: string | null;
  /**
   * The workflow run whose dispatch of this call is unknown (the parent's for the first round, the reconciliation's
   * own for its re-dispatch). Absent in inputs recorded before fencing existed: the round then fences nothing.
   */
  readonly dispatcher?: { readonly workflowId: string; readonly runId: string };
}

/** Input of the open-and-query step: the round to open (as {@link OpenRoundInput} without the call) and the first query. */
export interface OpenAndQueryInput extends QueryOutcomeInput {
  readonly round: Omit<OpenRoundInput, 'identity'>;
}

/**
 * Opens the reconciliation record of a call whose outcome is unknown (returns the open one on a retry), revoking
 * the dispatcher's lease first, before anyone asks the provider: from then on that attempt cannot send its request.
 */
export function createOpenReconciliation(runtime: ToolRuntime): (input: OpenRoundInput) => Promise<void> {
  return async ({ identity, auditId, dispatcher }) => {
    const { tool, workflowId } = reconciledCall(runtime, identity);
    const fence =
      dispatcher === undefined
        ? {}
        : {
            fence: {
              dispatcher: { ...dispatcher, callId: identity.callId },
              requestSha256: intendedRequestDigest(tool, identity.principal, identity.args),
              graceMs: SDK_LOCAL_TIMEOUT_BUFFER_MS,
            },
          };
    await runtime.store.openReconciliation({
      idempotencyKey: identity.idempotencyKey,
      workflowId,
      callId: identity.callId,
      tool: identity.tool,
      auditId,
      ...fence,
    });
  };
}

/**
 * Asks the tool's authoritative system once — about the job the call started (`tool.poll`, by handle) or else about
 * the call's key (`tool.reconcile`) — records the attempt, and on a definite answer settles the record (in the
 * same store transaction, with the reconciled result when the write committed). A committed
 * write's output runs through the whole funnel, so a reconciled result is as validated as a fresh one. A reconcile
 * that throws counts as `unknown`: the next query will tell.
 */
export function createQueryOutcome(runtime: ToolRuntime): (input: QueryOutcomeInput) => Promise<OutcomeFinding> {
  const query = queryOutcome(runtime);
  return async (input) => {
    const startedAtMs = Date.now();
    const found = await query(input);
    const { identity, attempt, callSpan } = input;
    reportReconciliationStep(runtime.telemetry ?? null, {
      kind: 'query',
      tool: identity.tool,
      callId: identity.callId,
      finding: found.finding,
      attempt,
      settles: callSpan ?? null,
      startedAtMs,
      endedAtMs: Date.now(),
    });
    return found;
  };
}

/**
 * Opens the round and asks the first time, in that order, as one activity: the fence is in place before the
 * provider is asked, exactly as with the two steps apart. A retry opens again (returns the open round) and asks
 * again under the same query number.
 */
export function createOpenAndQueryOutcome(runtime: ToolRuntime): (input: OpenAndQueryInput) => Promise<OutcomeFinding> {
  const open = createOpenReconciliation(runtime);
  const query = createQueryOutcome(runtime);
  return async ({ round, ...first }) => {
    await open({ identity: first.identity, ...round });
    return query(first);
  };
}

function queryOutcome(runtime: ToolRuntime): (input: QueryOutcomeInput) => Promise<OutcomeFinding> {
  return async ({ identity, attempt, jobHandle }) => {
    const { tool } = reconciledCall(runtime, identity);
    const ctx = activityExecutionContext(
      identity,
      AUDIT_ATTEMPT_BASE.reconcile + Math.min(attempt, 99),
      hostKeysOf(runtime),
    );
    const outcome = await askAuthority(tool, ctx, jobHandle);
    if (outcome === null) return { finding: 'cannot_ask' };
    try {
      return await recordAnswer(runtime, tool, identity, ctx, attempt, outcome);
    } catch (error) {
      // This query ran before and recorded its answer (a worker killed between the store step and Temporal hearing
      // of it), and the provider answers the retry differently: the answer recorded first is this query's answer.
      if (!isStoreError(error) || error.reason !== 'reconciliation_conflict') throw error;
      const earlier = await answeredBefore(runtime, tool, ctx, attempt);
      if (earlier === null) throw error;
      return earlier;
    }
  };
}

/**
 * What the tool's authoritative system says about the call: about the job it started (`tool.poll`, by handle) or
 * else about its key (`tool.reconcile`); `null` when the tool can ask neither. What it throws is `unknown`.
 */
async function askAuthority(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  jobHandle: string | undefined,
): Promise<ReconcileOutcome<unknown> | null> {
  const handlerContext = {
    callId: ctx.callId,
    operationId: ctx.operationId,
    idempotencyKey: ctx.idempotencyKey,
    attempt: ctx.attempt,
    principal: ctx.principal,
    now: Date.now,
    beforeDispatch: openDispatchFence,
  };
  const { poll, reconcile } = tool;
  const ask =
    jobHandle !== undefined && poll !== undefined
      ? () => poll(jobHandle, handlerContext)
      : reconcile === undefined
        ? undefined
        : () => reconcile(ctx.idempotencyKey, handlerContext);
  if (ask === undefined) return null;
  try {
    return readOutcome(await ask());
  } catch (error) {
    // Only the kind of exception: its message may carry anything (describeThrown never throws itself).
    return { state: 'unknown', reason: String(describeThrown(error)['exception']) };
  }
}

/**
 * Records the answer as query `attempt` of the round and returns the finding; a definite answer settles the round in
 * the same store step (with the reconciled result when the write committed).
 */
async function recordAnswer(
  runtime: ToolRuntime,
  tool: AnyToolImplementation,
  identity: CallIdentity,
  ctx: ExecutionContext,
  attempt: number,
  outcome: ReconcileOutcome<unknown>,
): Promise<OutcomeFinding> {
  const { idempotencyKey } = ctx;
  const record = (finding: 'committed' | 'not_committed' | 'unknown', detail: string | null) =>
    runtime.store.recordReconciliationAttempt({ idempotencyKey, attempt, finding, detail });
  const byReceipt = (
    settled: 'committed' | 'not_committed',
    receiptExternalId: string | null,
  ): SettleReconciliationInput => ({
    idempotencyKey,
    outcome: settled,
    via: 'receipt',
    receiptExternalId,
    resolvedBy: null,
    note: null,
    finding: { attempt, detail: receiptExternalId },
  });
  switch (outcome.state) {
    case 'unknown': {
      // The tool's text goes to history and Postgres: redacted like a model result, then cut, then well-formed
      // (a lone surrogate has no place in either).
      const reason =
        outcome.reason !== undefined
          ? callRedactor(tool, ctx, MAX_FINDING_REASON_CHARS).text(outcome.reason, '/reason', []).toWellFormed()
          : null;
      await record('unknown', reason);
      return { finding: 'unknown', reason: reason ?? 'the authoritative system does not know yet' };
    }
    case 'not_committed': {
      try {
        await runtime.store.settleReconciliation(byReceipt('not_committed', null));
      } catch (error) {
        // Not final yet: the fenced attempt may still send its request, or a commit of it was just recorded. The
        // refused settlement recorded nothing, so the answer is recorded on its own.
        if (!isStoreError(error) || error.reason !== 'verdict_premature') throw error;
        await record('not_committed', null);
        return { finding: 'unknown', reason: `not committed so far, but not final: ${String(error.details['why'])}` };
      }
      return { finding: 'not_committed', safeRetry: runtime.safeRetryTools.has(tool.name) };
    }
    case 'committed': {
      // The reconciled result, the settlement and the finding: one store transaction.
      const execution = await receiptReconciled(tool, ctx, identity.args, outcome.output);
      return {
        finding: 'committed',
        result: await recordOnce(
          runtime.store,
          execution,
          byReceipt('committed', execution.modelResult.execution.receipt?.external_id ?? null),
        ),
      };
    }
  }
}

/**
 * What an earlier run of query `attempt` recorded as its answer, as that run would have returned it, or `null` when
 * it recorded none (the conflict was another one). A settled round returns its settlement: the reconciled result is
 * read back by the audit id the query's attempt fixes.
 */
async function answeredBefore(
  runtime: ToolRuntime,
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  attempt: number,
): Promise<OutcomeFinding | null> {
  const round = await runtime.store.getReconciliation(ctx.idempotencyKey);
  if (round === null) return null;
  const earlier = round.attempts.find((recorded) => recorded.attempt === attempt);
  if (earlier === undefined) return null;
  if (round.state !== 'settled') {
    // A `committed` finding is recorded with its settlement, never alone.
    if (earlier.finding === 'committed') return null;
    const reason =
      earlier.finding === 'unknown'
        ? (earlier.detail ?? 'the authoritative system does not know yet')
        : 'an earlier run of this query found it not committed so far, but not final';
    return { finding: 'unknown', reason };
  }
  if (round.via !== 'receipt' || round.outcome !== earlier.finding) return null;
  if (round.outcome === 'not_committed')
    return { finding: 'not_committed', safeRetry: runtime.safeRetryTools.has(tool.name) };
  const recorded = await runtime.store.getAudit(auditIdOf(ctx));
  if (recorded === null) return null;
  return {
    finding: 'committed',
    result: { modelResult: recorded.modelResult, auditRef: auditRefOf(recorded.audit, recorded.auditSha256) },
  };
}

/**
 * A plain copy of what a tool's `reconcile` or `poll` answered, read once (inside the guard that catches what it
 * throws): one of the answers it may give, anything else is `unknown`.
 */
function readOutcome(answer: unknown): ReconcileOutcome<unknown> {
  const { state, reason, output } =
    typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
  if (state === 'committed') return { state, output: output as ToolOutput<unknown> };
  if (state === 'not_committed') return { state };
  if (state === 'unknown') return typeof reason === 'string' ? { state, reason } : { state };
  return { state: 'unknown', reason: 'reconcile gave no answer the contract knows' };
}

/** Hands the reconciliation to a human after its deadline. */
export function createEscalateReconciliation(
  runtime: ToolRuntime,
): (input: { identity: CallIdentity; reason: string }) => Promise<void> {
  return async ({ identity, reason }) => {
    reconciledCall(runtime, identity);
    await runtime.store.escalateReconciliation({ idempotencyKey: identity.idempotencyKey, reason });
  };
}

/**
 * The tool of a call a reconciliation step acts on, and the workflow the call belongs to. The steps read and write the
 * key's records and ask the provider about it, so they run only in the reconciliation workflow of the call's own key
 * (see `callOwnership`); anywhere else the call is refused (`PERMISSION_DENIED`) before anything is read or written.
 */
function reconciledCall(
  runtime: ToolRuntime,
  identity: CallIdentity,
): { readonly tool: AnyToolImplementation; readonly workflowId: string } {
  const tool = runtime.registry.get(identity.tool);
  const owner = callOwnership(tool, identity, ['reconciliation']);
  if (owner === null) throw new ToolError('PERMISSION_DENIED', { reason: 'foreign_call' });
  return { tool, workflowId: owner.workflowId };
}
