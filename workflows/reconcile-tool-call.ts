import { condition, defineQuery, defineSignal, proxyActivities, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { LateResultEscalation } from '../activities/late-result.js';
import type { createEscalateReconciliation, createOpenReconciliation, createQueryOutcome, OpenRoundInput } from '../activities/reconcile-call.js';
import type { HumanResolution } from '../activities/settle-call.js';
import type { ToolCallResult } from '../activities/tool-activity.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { settle, type SettleTimeouts } from './settle.js';
import { dispatchWriteOnce } from './tool-dispatch.js';
import { ESCALATE_ACTIVITY, OPEN_RECONCILIATION_ACTIVITY, QUERY_OUTCOME_ACTIVITY, RECONCILE_STATE_QUERY, RESOLVE_OUTCOME_SIGNAL } from '../src/wire/names.js';
import { RECONCILE_STATE_SA, type ReconcileState } from '../src/wire/search-attributes.js';
import { DEFAULT_RECONCILE_POLICY, type ReconcileInput, type ReconcilePolicy } from './reconcile-policy.js';

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
 * unknown: it first fences the attempt (its lease is revoked, so it can no longer send its request), then asks the
 * tool's authoritative system (`poll` or `reconcile`) with backoff until it says committed (`receipt_reconciled`) or
 * not committed — final once the fenced attempt cannot still be sending — and then makes one safe re-dispatch with
 * the same key if the tool allows it, else settles failed `not_started`. Past its deadline it escalates and waits for
 * a human's signal (`human_resolved`). Started by `callTool` with a workflow id derived from the key and
 * `ParentClosePolicy.ABANDON`; started by a worker with a {@link LateResultEscalation} when a result saying the write
 * may have taken effect was recorded after the call had been settled "not committed", it only waits for the human.
 */
export async function reconcileToolCall(input: ReconcileInput | LateResultEscalation): Promise<ToolCallResult> {
  // Handlers first: a human may signal before the first query even runs.
  let human: HumanResolution | null = null;
  const status: Progress = { state: 'reconciling', queries: 0, lastFinding: null, redispatched: false, refusedSignals: 0 };
  setHandler(resolveOutcomeSignal, (signal) => {
    const resolution = validResolution(signal);
    if (resolution === null) status.refusedSignals += 1;
    else if (human === null) human = resolution;
  });
  setHandler(reconcileStateQuery, () => ({ ...status, idempotencyKey: input.identity.idempotencyKey, tool: input.identity.tool }));

  const { identity } = input;
  // Inputs recorded before the activity timeouts existed lack them: the defaults fill in.
  const policy = { ...DEFAULT_RECONCILE_POLICY, ...('policy' in input ? input.policy : {}) };
  const taskQueue = 'taskQueue' in input ? input.taskQueue : undefined;
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: policy.activityTimeoutMs,
    heartbeatTimeout: policy.activityHeartbeatTimeoutMs,
    retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: nonRetryableCodes() },
    ...(taskQueue === undefined ? {} : { taskQueue }),
  });
  const enter = (state: ReconcileState, detail: string) => {
    status.state = state;
    upsertSearchAttributes([{ key: RECONCILE_STATE_SA, value: state }]);
    setCurrentDetails(`**${state}** — ${input.summary}\n\nkey \`${identity.idempotencyKey}\`; ${detail}`);
  };

  if ('lateAuditId' in input) {
    // The store escalated the key when it recorded the late result; both facts are in its records.
    enter('escalated', `waiting for a human: a result (audit \`${input.lateAuditId}\`) says the write may have taken effect after the call was settled not committed`);
    await condition(() => human !== null);
  } else {
    const queried = await reconcileByQueries(input, policy, activities, enter, status, () => human !== null);
    if (queried.kind === 'settled') return queried.result;
    if (human === null) {
      const reason = queried.couldAsk ? `no definite answer within ${policy.deadlineMs} ms` : 'the tool cannot reconcile';
      enter('escalated', `waiting for a human: ${reason}`);
      await activities[ESCALATE_ACTIVITY]({ identity, reason });
      await condition(() => human !== null);
    }
  }
  const resolution = human as HumanResolution | null;
  if (resolution === null) throw new Error('unreachable: resolution awaited');
  enter(resolution.outcome, `resolved by ${resolution.resolvedBy}`);
  return settle(identity, { kind: 'human', resolution }, settleTimeouts(policy));
}

/** Where the reconciliation stands, as the state query reports it. */
type Progress = { -readonly [K in Exclude<keyof ReconcileStatus, 'idempotencyKey' | 'tool'>]: ReconcileStatus[K] };
type Enter = (state: ReconcileState, detail: string) => void;

function settleTimeouts(policy: ReconcilePolicy): SettleTimeouts {
  return { startToCloseMs: policy.activityTimeoutMs, heartbeatMs: policy.activityHeartbeatTimeoutMs };
}

/**
 * The queries: fence the unknown dispatch and open the round, then ask with backoff until a definite answer, the
 * deadline, or a human's resolution. Returns the settled result, or — when a human must (or did) decide — whether
 * the authoritative system could be asked at all (by key, or by the handle of the job the last dispatch started).
 */
async function reconcileByQueries(
  input: ReconcileInput,
  policy: ReconcilePolicy,
  activities: ActivityInterfaceFor<Activities>,
  enter: Enter,
  status: Progress,
  humanResolved: () => boolean,
): Promise<{ readonly kind: 'settled'; readonly result: ToolCallResult } | { readonly kind: 'undecided'; readonly couldAsk: boolean }> {
  const { identity } = input;
  const parent = workflowInfo().parent;
  enter('reconciling', 'asking the authoritative system');
  await activities[OPEN_RECONCILIATION_ACTIVITY](openInput(input, input.auditId, parent && { workflowId: parent.workflowId, runId: parent.runId }));

  let unsettledBecause = input.unsettledBecause ?? 'unknown';
  let job = input.job;
  const polls = () => job !== undefined && input.canPoll === true;
  // A job is not asked about before the time its system named: asking earlier only costs a query.
  if (job?.pollAfterMs) await condition(humanResolved, job.pollAfterMs);
  let deadline = Date.now() + policy.deadlineMs;
  let interval = policy.initialIntervalMs;
  while (!humanResolved() && (input.canReconcile || polls()) && Date.now() < deadline) {
    status.queries += 1;
    const found = await activities[QUERY_OUTCOME_ACTIVITY]({ identity, attempt: status.queries, ...(job !== undefined && polls() ? { jobHandle: job.handle } : {}) });
    status.lastFinding = found.finding;
    if (found.finding === 'committed') {
      enter('committed', 'the authoritative system confirmed the write');
      return { kind: 'settled', result: found.result };
    }
    if (found.finding === 'not_committed') {
      if (!input.safeRetry || status.redispatched) {
        enter('not_committed', 'the write did not happen; it was not repeated');
        return { kind: 'settled', result: await settle(identity, { kind: 'not_committed', unsettledBecause }, settleTimeouts(policy)) };
      }
      status.redispatched = true;
      enter('redispatching', 'the write did not happen; dispatching it once more with the same key');
      const again = await dispatchWriteOnce(identity, 'redispatch', input.summary, { timeoutMs: input.toolTimeoutMs, ...(input.taskQueue === undefined ? {} : { taskQueue: input.taskQueue }) });
      if (again.kind === 'settled') {
        enter(again.result.modelResult.execution.outcome === 'committed' ? 'committed' : 'not_committed', 'settled by the safe re-dispatch');
        return { kind: 'settled', result: again.result };
      }
      unsettledBecause = again.because;
      job = again.result?.job;
      enter('reconciling', 'the re-dispatch outcome is unknown too; asking again');
      // This time the unknown dispatch is this workflow's own.
      const self = workflowInfo();
      await activities[OPEN_RECONCILIATION_ACTIVITY](openInput(input, again.auditId, { workflowId: self.workflowId, runId: self.runId }));
      deadline = Date.now() + policy.deadlineMs;
      interval = policy.initialIntervalMs;
      continue;
    }
    await condition(humanResolved, interval);
    interval = Math.min(interval * policy.backoffCoefficient, policy.maximumIntervalMs);
  }
  return { kind: 'undecided', couldAsk: input.canReconcile || polls() };
}

function openInput(input: ReconcileInput, auditId: string | null, dispatcher: OpenRoundInput['dispatcher']): OpenRoundInput {
  return { identity: input.identity, workflowId: input.parentWorkflowId, auditId, ...(dispatcher === undefined ? {} : { dispatcher }) };
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
