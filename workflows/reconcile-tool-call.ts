import {
  condition,
  defineQuery,
  sleep,
  defineSignal,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { SubmittedDecision } from '../activities/check-decision.js';
import type { LateResultEscalation } from '../activities/late-result.js';
import type {
  createEscalateReconciliation,
  createOpenAndQueryOutcome,
  createOpenReconciliation,
  createQueryOutcome,
  OpenAndQueryInput,
  OpenRoundInput,
  QueryOutcomeInput,
} from '../activities/reconcile-call.js';
import type { ToolCallResult } from '../activities/tool-activity.js';
import type { VerifiedDecision } from '../activities/verify-decision.js';
import type { DecisionRecord } from '../src/contract/decision-record.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { MAX_DECISION_TOKEN_CHARS, type DecisionRefusal } from '../src/wire/decisions.js';
import { catalogWorkflowFailure } from './catalog-failure.js';
import {
  answer,
  answerTo,
  enqueue,
  keepLatest,
  refusal,
  verifyDecision,
  type DecisionAnswer,
  type QueuedDecision,
} from './decision-inbox.js';
import { settle, type SettleTimeouts } from './settle.js';
import { dispatchWriteOnce, PACKAGE_CALL_DEFAULTS } from './call/dispatch-step.js';
import {
  ESCALATE_ACTIVITY,
  OPEN_AND_QUERY_ACTIVITY,
  OPEN_RECONCILIATION_ACTIVITY,
  QUERY_OUTCOME_ACTIVITY,
  RECONCILE_STATE_QUERY,
  RESOLVE_OUTCOME_SIGNAL,
  RESOLVE_OUTCOME_UPDATE,
} from '../src/wire/names.js';
import { RECONCILE_STATE_SA, type ReconcileState } from '../src/wire/search-attributes.js';
import {
  DEFAULT_RECONCILE_POLICY,
  jitteredWaitMs,
  type ReconcileInput,
  type ReconcilePolicy,
} from './reconcile-policy.js';

/**
 * A person's answer to an escalated call, as a signal or update carries it. On a worker with an authenticator it is
 * proven by `token` (made by `signDecision`, bound to this reconciliation run and idempotency key), which also
 * names the resolver.
 */
export interface ResolveOutcomeSignal {
  readonly outcome: 'committed' | 'not_committed';
  /** The authoritative system's id of the committed write; required for `committed`. */
  readonly externalId?: string;
  /** The signed resolution; required when the worker has an authenticator (else it is refused `unsigned`). */
  readonly token?: string;
  /** Who resolves. Counts only on a worker that takes decisions unauthenticated (development); a token names its resolver. */
  readonly resolvedBy?: string;
  readonly note?: string;
}

export type { ReconcileState } from '../src/wire/search-attributes.js';

/** A resolution that did not settle the call, kept (bounded) for the state query; every one stays in history. */
export interface RefusedResolution {
  readonly reason: DecisionRefusal;
  /** The resolver the sender named (unverified). */
  readonly claimedBy: string | null;
  readonly at: string;
}

/** What the reconcile-state query returns. */
export interface ReconcileStatus {
  /** The reconciliation run: a signed resolution is bound to it. */
  readonly workflowId: string;
  readonly runId: string;
  readonly state: ReconcileState;
  readonly idempotencyKey: string;
  readonly tool: string;
  readonly queries: number;
  readonly lastFinding: string | null;
  readonly redispatched: boolean;
  /** Resolutions refused so far: malformed, sent before the escalation, or not verified. */
  readonly refusedSignals: number;
  /** The latest refused resolutions, with why. */
  readonly refusedResolutions: readonly RefusedResolution[];
  /** The resolution that settled the call, once one did. */
  readonly resolution: DecisionRecord | null;
}

export const resolveOutcomeSignal = defineSignal<[ResolveOutcomeSignal]>(RESOLVE_OUTCOME_SIGNAL);
export const resolveOutcomeUpdate = defineUpdate<DecisionAnswer, [ResolveOutcomeSignal]>(RESOLVE_OUTCOME_UPDATE);
export const reconcileStateQuery = defineQuery<ReconcileStatus>(RECONCILE_STATE_QUERY);

type Activities = {
  [OPEN_RECONCILIATION_ACTIVITY]: ReturnType<typeof createOpenReconciliation>;
  [QUERY_OUTCOME_ACTIVITY]: ReturnType<typeof createQueryOutcome>;
  [OPEN_AND_QUERY_ACTIVITY]: ReturnType<typeof createOpenAndQueryOutcome>;
  [ESCALATE_ACTIVITY]: ReturnType<typeof createEscalateReconciliation>;
};

/**
 * The step that runs as a local activity when the reconciliation's activities run on its own task queue: a write
 * found at once then settles in the child's first workflow task, with no activity task and no second workflow task
 * waiting for the workflow thread.
 */
type LocalActivities = Pick<Activities, typeof OPEN_AND_QUERY_ACTIVITY>;

type SubmittedResolution = SubmittedDecision & { readonly kind: 'resolution' };

/**
 * Settles a write whose outcome is unknown, by idempotency key — or an asynchronous job the write started, by the
 * job's handle (`poll`, first after the job's own `pollAfterMs`). It never re-dispatches a write whose outcome is
 * unknown: it first fences the attempt (its lease is revoked, so it can no longer send its request), then asks the
 * tool's authoritative system (`poll` or `reconcile`) with backoff until it says committed (`receipt_reconciled`) or
 * not committed — final once the fenced attempt cannot still be sending — and then makes one safe re-dispatch with
 * the same key if the tool allows it, else settles failed `not_started`. Past its deadline it escalates and waits for
 * a person's resolution (`human_resolved`): only then does one count — a resolution while the system is still being
 * asked is refused and settles nothing — and only once the worker verified it. Started by `callTool` with a workflow
 * id derived from the key and `ParentClosePolicy.ABANDON`; started by a worker with a {@link LateResultEscalation}
 * when a result saying the write may have taken effect was recorded after the call had been settled "not committed",
 * it only waits for the person.
 */
export async function reconcileToolCall(input: ReconcileInput | LateResultEscalation): Promise<ToolCallResult> {
  // The handlers first: a person may send a resolution before the first query even runs (it is refused, on the record).
  let resolution: VerifiedDecision | null = null;
  const queue: QueuedDecision<SubmittedResolution>[] = [];
  const refusedResolutions: RefusedResolution[] = [];
  const status: Progress = {
    state: 'reconciling',
    queries: 0,
    lastFinding: null,
    redispatched: false,
    refusedSignals: 0,
  };
  const refuse = (reason: DecisionRefusal, claimedBy: string | null): DecisionAnswer => {
    status.refusedSignals += 1;
    keepLatest(refusedResolutions, { reason, claimedBy, at: new Date(Date.now()).toISOString() });
    return refusal(reason, resolution?.decision ?? null);
  };
  const submit = (payload: unknown, awaited: boolean): QueuedDecision<SubmittedResolution> | DecisionAnswer => {
    const parsed = parseResolution(payload);
    if (parsed === null) return refuse('malformed', null);
    const submitted = toSubmitted(parsed);
    if (resolution !== null) return refuse('already_decided', submitted.claimedBy);
    if (status.state !== 'escalated') return refuse('not_escalated', submitted.claimedBy);
    return enqueue(queue, submitted, awaited) ?? refuse('too_many', submitted.claimedBy);
  };
  setHandler(resolveOutcomeSignal, (signal) => void submit(signal, false));
  setHandler(
    resolveOutcomeUpdate,
    async (payload) => {
      const queued = submit(payload, true);
      return 'ticket' in queued ? answerTo(queued) : queued;
    },
    {
      validator: (payload: ResolveOutcomeSignal) => {
        if (parseResolution(payload) === null) throw catalogWorkflowFailure('APPROVAL_INVALID', 'malformed resolution');
      },
    },
  );
  setHandler(reconcileStateQuery, () => ({
    ...status,
    workflowId: workflowInfo().workflowId,
    runId: workflowInfo().runId,
    idempotencyKey: input.identity.idempotencyKey,
    tool: input.identity.tool,
    refusedResolutions: [...refusedResolutions],
    resolution: resolution?.decision ?? null,
  }));

  const { identity } = input;
  const policy = { ...DEFAULT_RECONCILE_POLICY, ...('policy' in input ? input.policy : {}) };
  const taskQueue = 'taskQueue' in input ? input.taskQueue : undefined;
  const retry = { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: nonRetryableCodes() };
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: policy.activityTimeoutMs,
    heartbeatTimeout: policy.activityHeartbeatTimeoutMs,
    retry,
    ...(taskQueue === undefined ? {} : { taskQueue }),
  });
  // A local activity runs on this run's own worker: only when that is where the activities run anyway.
  const local =
    taskQueue === undefined || taskQueue === workflowInfo().taskQueue
      ? proxyLocalActivities<LocalActivities>({ startToCloseTimeout: policy.activityTimeoutMs, retry })
      : null;
  const enter = (state: ReconcileState, detail: string) => {
    status.state = state;
    upsertSearchAttributes([{ key: RECONCILE_STATE_SA, value: state }]);
    setCurrentDetails(`**${state}** — ${input.summary}\n\nkey \`${identity.idempotencyKey}\`; ${detail}`);
  };

  if ('lateAuditId' in input) {
    // The store escalated the key when it recorded the late result; both facts are in its records.
    enter(
      'escalated',
      `waiting for a human: a result (audit \`${input.lateAuditId}\`) says the write may have taken effect after the call was settled not committed`,
    );
  } else {
    const queried = await reconcileByQueries(input, policy, { activities, local }, enter, status);
    if (queried.kind === 'settled') return queried.result;
    const reason = queried.couldAsk ? `no definite answer within ${policy.deadlineMs} ms` : 'the tool cannot reconcile';
    enter('escalated', `waiting for a human: ${reason}`);
    await activities[ESCALATE_ACTIVITY]({ identity, reason });
  }
  resolution = await awaitResolution(queue, identity.idempotencyKey, (reason, claimedBy) => refuse(reason, claimedBy));
  enter(
    resolution.decision.decision === 'committed' ? 'committed' : 'not_committed',
    `resolved by ${resolution.decision.decided_by}`,
  );
  const settles = 'callSpan' in input && input.callSpan !== undefined ? { settles: input.callSpan } : {};
  return settle(identity, { kind: 'human', resolution, ...settles }, settleTimeouts(policy));
}

/** Where the reconciliation stands, as the state query reports it (the run, key, tool and resolutions aside). */
type Progress = {
  -readonly [
    K in Exclude<
      keyof ReconcileStatus,
      'workflowId' | 'runId' | 'idempotencyKey' | 'tool' | 'refusedResolutions' | 'resolution'
    >
  ]: ReconcileStatus[K];
};
type Enter = (state: ReconcileState, detail: string) => void;

function settleTimeouts(policy: ReconcilePolicy): SettleTimeouts {
  return { startToCloseMs: policy.activityTimeoutMs, heartbeatMs: policy.activityHeartbeatTimeoutMs };
}

/**
 * The queries: fence the unknown dispatch and open the round, then ask with backoff until a definite answer or the
 * deadline. Returns the settled result, or — when a person must decide — whether the authoritative system could be
 * asked at all (the worker says: by key, or by the handle of the job the last dispatch started). A round opens before
 * anything else happens in it: inside its first query's activity when that follows at once, else on its own.
 */
async function reconcileByQueries(
  input: ReconcileInput,
  policy: ReconcilePolicy,
  {
    activities,
    local,
  }: {
    readonly activities: ActivityInterfaceFor<Activities>;
    readonly local: ActivityInterfaceFor<LocalActivities> | null;
  },
  enter: Enter,
  status: Progress,
): Promise<
  | { readonly kind: 'settled'; readonly result: ToolCallResult }
  | { readonly kind: 'undecided'; readonly couldAsk: boolean }
> {
  const { identity } = input;
  const parent = workflowInfo().parent;
  enter('reconciling', 'asking the authoritative system');
  let unsettledBecause = input.unsettledBecause;
  let job = input.job;
  // Whether the tool can be asked at all is the worker's to say: its first query answers `cannot_ask` if not.
  let canAsk = true;
  // Opens a round now, or leaves it to the query that follows at once: returns it if so.
  const openUnlessAskedAtOnce = async (round: OpenAndQueryInput['round'], askedAtOnce: boolean) => {
    if (askedAtOnce) return round;
    await activities[OPEN_RECONCILIATION_ACTIVITY]({ identity, ...round });
    return null;
  };
  const openAndQuery = (first: OpenAndQueryInput) =>
    local !== null ? local[OPEN_AND_QUERY_ACTIVITY](first) : activities[OPEN_AND_QUERY_ACTIVITY](first);
  // A job is not asked about before the time its system named (asking earlier only costs a query), but its
  // dispatch is fenced without delay.
  let unopened = await openUnlessAskedAtOnce(
    roundInput(input.auditId, parent && { workflowId: parent.workflowId, runId: parent.runId }),
    !job?.pollAfterMs,
  );
  if (job?.pollAfterMs) await sleep(job.pollAfterMs);
  let deadline = Date.now() + policy.deadlineMs;
  let interval = policy.initialIntervalMs;
  while (canAsk && Date.now() < deadline) {
    status.queries += 1;
    const query: QueryOutcomeInput = {
      identity,
      attempt: status.queries,
      ...(job === undefined ? {} : { jobHandle: job.handle }),
      ...(input.callSpan === undefined ? {} : { callSpan: input.callSpan }),
    };
    const found =
      unopened === null
        ? await activities[QUERY_OUTCOME_ACTIVITY](query)
        : await openAndQuery({ ...query, round: unopened });
    unopened = null;
    status.lastFinding = found.finding;
    if (found.finding === 'committed') {
      enter('committed', 'the authoritative system confirmed the write');
      return { kind: 'settled', result: found.result };
    }
    if (found.finding === 'cannot_ask') {
      // Nothing was asked: the round is open, and a person decides.
      status.queries -= 1;
      canAsk = false;
      break;
    }
    if (found.finding === 'not_committed') {
      if (!found.safeRetry || !input.mayRedispatch || status.redispatched) {
        enter('not_committed', 'the write did not happen; it was not repeated');
        return {
          kind: 'settled',
          result: await settle(identity, { kind: 'not_committed', unsettledBecause }, settleTimeouts(policy)),
        };
      }
      status.redispatched = true;
      enter('redispatching', 'the write did not happen; dispatching it once more with the same key');
      // The one safe re-dispatch runs on the same approval (the tool activity checks it again).
      const options = {
        timeoutMs: input.toolTimeoutMs,
        readAttempts: 1,
        heartbeatTimeoutMs: PACKAGE_CALL_DEFAULTS.heartbeatTimeoutMs,
        ...(input.taskQueue === undefined ? {} : { taskQueue: input.taskQueue }),
      };
      const again = await dispatchWriteOnce(
        {
          identity,
          revision: input.revision,
          summary: input.summary,
          options,
          ...(input.approval === undefined ? {} : { approval: input.approval }),
        },
        'redispatch',
      );
      if (again.kind === 'settled') {
        enter(
          again.result.modelResult.execution.outcome === 'committed' ? 'committed' : 'not_committed',
          'settled by the safe re-dispatch',
        );
        return { kind: 'settled', result: again.result };
      }
      unsettledBecause = again.unknown.because;
      job = again.unknown.result?.job;
      enter('reconciling', 'the re-dispatch outcome is unknown too; asking again');
      // This time the unknown dispatch is this workflow's own; the next query follows at once.
      const self = workflowInfo();
      unopened = await openUnlessAskedAtOnce(
        roundInput(again.unknown.auditId, { workflowId: self.workflowId, runId: self.runId }),
        true,
      );
      deadline = Date.now() + policy.deadlineMs;
      interval = policy.initialIntervalMs;
      continue;
    }
    await sleep(jitteredWaitMs(interval, identity.idempotencyKey, status.queries));
    interval = Math.min(interval * policy.backoffCoefficient, policy.maximumIntervalMs);
  }
  // A round is open before anyone may escalate it, even one whose first query never ran.
  if (unopened !== null) await activities[OPEN_RECONCILIATION_ACTIVITY]({ identity, ...unopened });
  return { kind: 'undecided', couldAsk: canAsk };
}

function roundInput(auditId: string | null, dispatcher: OpenRoundInput['dispatcher']): OpenAndQueryInput['round'] {
  return { auditId, ...(dispatcher === undefined ? {} : { dispatcher }) };
}

/**
 * Takes queued resolutions one at a time, in arrival order, and asks the worker to verify each; the first that
 * verifies settles the call, and every other one is told it lost (with the winner).
 */
async function awaitResolution(
  queue: QueuedDecision<SubmittedResolution>[],
  idempotencyKey: string,
  refuse: (reason: DecisionRefusal, claimedBy: string | null) => DecisionAnswer,
): Promise<VerifiedDecision> {
  for (;;) {
    await condition(() => queue.length > 0);
    const next = queue.shift() as QueuedDecision<SubmittedResolution>;
    const verdict = await verifyDecision({ submitted: next.submitted, target: { kind: 'resolution', idempotencyKey } });
    if (!verdict.ok) {
      answer(next, refuse(verdict.reason, next.submitted.claimedBy));
      continue;
    }
    answer(next, { accepted: true, decision: verdict.record });
    for (const loser of queue.splice(0)) answer(loser, refusal('already_decided', verdict.record));
    return { token: next.submitted.token, decision: verdict.record };
  }
}

/** A resolution with every field of the right type, or `null`. It names a resolver or carries a token. Bounded. */
function parseResolution(payload: unknown): ResolveOutcomeSignal | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { outcome, externalId, resolvedBy, note, token } = payload as Partial<
    Record<keyof ResolveOutcomeSignal, unknown>
  >;
  if (outcome !== 'committed' && outcome !== 'not_committed') return null;
  const named = typeof resolvedBy === 'string' && resolvedBy.trim() !== '';
  const signed = typeof token === 'string' && token !== '';
  if (!named && !signed) return null;
  const hasExternalId = typeof externalId === 'string' && externalId !== '';
  if (outcome === 'committed' && !hasExternalId) return null;
  return {
    outcome,
    ...(hasExternalId ? { externalId: externalId.slice(0, 256) } : {}),
    ...(named ? { resolvedBy: resolvedBy.slice(0, 200) } : {}),
    ...(signed ? { token: token.slice(0, MAX_DECISION_TOKEN_CHARS + 1) } : {}),
    ...(typeof note === 'string' ? { note: note.slice(0, 2000) } : {}),
  };
}

function toSubmitted(resolution: ResolveOutcomeSignal): SubmittedResolution {
  return {
    kind: 'resolution',
    decision: resolution.outcome,
    externalId: resolution.externalId ?? null,
    token: resolution.token ?? null,
    claimedBy: resolution.resolvedBy ?? null,
    note: resolution.note ?? null,
  };
}
