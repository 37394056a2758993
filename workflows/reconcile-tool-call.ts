import { condition, defineQuery, defineSignal, proxyActivities, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { createEscalateReconciliation, createOpenReconciliation, createQueryOutcome } from '../activities/reconcile-call.js';
import type { HumanResolution } from '../activities/settle-call.js';
import type { ToolCallResult } from '../activities/tool-activity.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { settle } from './settle.js';
import { dispatchWriteOnce } from './tool-dispatch.js';
import { ESCALATE_ACTIVITY, OPEN_RECONCILIATION_ACTIVITY, QUERY_OUTCOME_ACTIVITY, RECONCILE_STATE_QUERY, RESOLVE_OUTCOME_SIGNAL } from '../src/wire/names.js';
import { RECONCILE_STATE_SA, type ReconcileState } from '../src/wire/search-attributes.js';
import type { ReconcileInput } from './reconcile-policy.js';

/** A human's answer to an escalated (or still reconciling) call, sent as a signal. */
export interface ResolveOutcomeSignal {
  readonly outcome: 'committed' | 'not_committed';
  /** The authoritative system's id of the committed write; required for `committed`. */
  readonly externalId?: string;
  readonly resolvedBy: string;
  readonly note?: string;
}

export type { ReconcileState } from '../src/wire/search-attributes.js';

/** What the reconcile-state query returns. */
export interface ReconcileStatus {
  readonly state: ReconcileState;
  readonly idempotencyKey: string;
  readonly tool: string;
  readonly queries: number;
  readonly lastFinding: string | null;
  readonly redispatched: boolean;
  /** Resolution signals refused because they were malformed (missing resolver, committed without external id). */
  readonly refusedSignals: number;
}

export const resolveOutcomeSignal = defineSignal<[ResolveOutcomeSignal]>(RESOLVE_OUTCOME_SIGNAL);
export const reconcileStateQuery = defineQuery<ReconcileStatus>(RECONCILE_STATE_QUERY);

type Activities = {
  [OPEN_RECONCILIATION_ACTIVITY]: ReturnType<typeof createOpenReconciliation>;
  [QUERY_OUTCOME_ACTIVITY]: ReturnType<typeof createQueryOutcome>;
  [ESCALATE_ACTIVITY]: ReturnType<typeof createEscalateReconciliation>;
};

/**
 * Settles a write whose outcome is unknown, by idempotency key — or an asynchronous job the write started, by the
 * job's handle (`poll`, first after the job's own `pollAfterMs`). It never re-dispatches a write whose outcome is
 * unknown: it asks the tool's authoritative system (`poll` or `reconcile`) with backoff until it says committed
 * (`receipt_reconciled`) or not committed (then one safe re-dispatch with the same key if the tool allows it, else
 * failed `not_started`). Past its deadline it escalates and waits for a human's signal (`human_resolved`).
 * Started by `callTool` with a workflow id derived from the key and `ParentClosePolicy.ABANDON`.
 */
export async function reconcileToolCall(input: ReconcileInput): Promise<ToolCallResult> {
  // Handlers first: a human may signal before the first query even runs.
  let human: HumanResolution | null = null;
  const status = { state: 'reconciling' as ReconcileState, queries: 0, lastFinding: null as string | null, redispatched: false, refusedSignals: 0 };
  setHandler(resolveOutcomeSignal, (signal) => {
    const resolution = validResolution(signal);
    if (resolution === null) status.refusedSignals += 1;
    else if (human === null) human = resolution;
  });
  setHandler(reconcileStateQuery, () => ({ ...status, idempotencyKey: input.identity.idempotencyKey, tool: input.identity.tool }));

  const { identity, policy } = input;
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: '60s',
    retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: nonRetryableCodes() },
    ...(input.taskQueue === undefined ? {} : { taskQueue: input.taskQueue }),
  });
  const enter = (state: ReconcileState, detail: string) => {
    status.state = state;
    upsertSearchAttributes([{ key: RECONCILE_STATE_SA, value: state }]);
    setCurrentDetails(`**${state}** — ${input.summary}\n\nkey \`${identity.idempotencyKey}\`; ${detail}`);
  };

  enter('reconciling', 'asking the authoritative system');
  await activities[OPEN_RECONCILIATION_ACTIVITY]({ identity, workflowId: input.parentWorkflowId, auditId: input.auditId });

  let unsettledBecause = input.unsettledBecause ?? 'unknown';
  let job = input.job;
  const polls = () => job !== undefined && input.canPoll === true;
  // A job is not asked about before the time its system named: asking earlier only costs a query.
  if (job?.pollAfterMs) await condition(() => human !== null, job.pollAfterMs);
  let deadline = Date.now() + policy.deadlineMs;
  let interval = policy.initialIntervalMs;
  while (human === null && (input.canReconcile || polls()) && Date.now() < deadline) {
    status.queries += 1;
    const found = await activities[QUERY_OUTCOME_ACTIVITY]({ identity, attempt: status.queries, ...(job !== undefined && polls() ? { jobHandle: job.handle } : {}) });
    status.lastFinding = found.finding;
    if (found.finding === 'committed') {
      enter('committed', 'the authoritative system confirmed the write');
      return found.result;
    }
    if (found.finding === 'not_committed') {
      if (!input.safeRetry || status.redispatched) {
        enter('not_committed', 'the write did not happen; it was not repeated');
        return settle(identity, { kind: 'not_committed', unsettledBecause });
      }
      status.redispatched = true;
      enter('redispatching', 'the write did not happen; dispatching it once more with the same key');
      const again = await dispatchWriteOnce(identity, 'redispatch', input.summary, { timeoutMs: input.toolTimeoutMs, ...(input.taskQueue === undefined ? {} : { taskQueue: input.taskQueue }) });
      if (again.kind === 'settled') {
        enter(again.result.modelResult.execution.outcome === 'committed' ? 'committed' : 'not_committed', 'settled by the safe re-dispatch');
        return again.result;
      }
      unsettledBecause = again.because;
      job = again.result?.job;
      enter('reconciling', 'the re-dispatch outcome is unknown too; asking again');
      await activities[OPEN_RECONCILIATION_ACTIVITY]({ identity, workflowId: input.parentWorkflowId, auditId: again.auditId });
      deadline = Date.now() + policy.deadlineMs;
      interval = policy.initialIntervalMs;
      continue;
    }
    await condition(() => human !== null, interval);
    interval = Math.min(interval * policy.backoffCoefficient, policy.maximumIntervalMs);
  }

  if (human === null) {
    const reason = input.canReconcile || polls() ? `no definite answer within ${policy.deadlineMs} ms` : 'the tool cannot reconcile';
    enter('escalated', `waiting for a human: ${reason}`);
    await activities[ESCALATE_ACTIVITY]({ identity, reason });
    await condition(() => human !== null);
  }
  const resolution = human as HumanResolution | null;
  if (resolution === null) throw new Error('unreachable: resolution awaited');
  enter(resolution.outcome, `resolved by ${resolution.resolvedBy}`);
  return settle(identity, { kind: 'human', resolution });
}

function validResolution(signal: unknown): HumanResolution | null {
  if (typeof signal !== 'object' || signal === null) return null;
  const { outcome, externalId, resolvedBy, note } = signal as Partial<Record<keyof ResolveOutcomeSignal, unknown>>;
  if (outcome !== 'committed' && outcome !== 'not_committed') return null;
  if (typeof resolvedBy !== 'string' || resolvedBy.trim() === '') return null;
  if (outcome === 'committed' && (typeof externalId !== 'string' || externalId === '')) return null;
  return {
    outcome,
    externalId: typeof externalId === 'string' ? externalId : null,
    resolvedBy: resolvedBy.slice(0, 200),
    note: typeof note === 'string' ? note.slice(0, 2000) : null,
  };
}
