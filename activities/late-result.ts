import { setTimeout as sleep } from 'node:timers/promises';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WorkerStore } from '../src/store/tool-store.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import { RECONCILE_WORKFLOW_TYPE } from '../src/wire/names.js';
import { IDEMPOTENCY_KEY_SA, RECONCILE_STATE_SA, type ReconcileState } from '../src/wire/search-attributes.js';
import type { CallIdentity } from '../src/contract/call-identity.js';

/**
 * Input of the reconciliation workflow for a late result: a write's commit (or an unknown outcome of a request that
 * may have left late) was recorded after its call had been settled "not committed" — a worker frozen past its fence
 * woke up and sent its request. The store has already kept both facts and escalated the key's round; the workflow
 * only waits for a human's `ttc.resolveOutcome`.
 */
export interface LateResultEscalation {
  readonly identity: CallIdentity;
  /** The audit of the late result: its receipt, when it has one, names what the provider recorded. */
  readonly lateAuditId: string;
  /** The workflow whose dispatch produced the late result. */
  readonly dispatchedBy: string;
  readonly summary: string;
}

/** How long a start waits for the key's previous reconciliation run (which settled a moment ago) to close. */
const START_ATTEMPTS = 20;
const START_RETRY_MS = 1000;

/**
 * After a leased write's result was recorded late: when the store marked it a dispute, starts the human's
 * reconciliation workflow (`ttc-reconcile:<key>`, state `escalated`) with the worker's own client, on the task queue
 * of the workflow that dispatched the write. Never throws: the escalation is durable in the store whatever happens
 * here (`tool-contract unsettled` lists it), and failing to start the workflow is logged.
 */
export async function escalateIfLateResult(
  store: WorkerStore,
  context: ActivityContext,
  identity: CallIdentity,
  auditId: string,
): Promise<void> {
  try {
    const entry = await store.getLedgerEntry(identity.idempotencyKey);
    if (entry?.lateCommitAuditId !== auditId) return;
    const dispatcher = context.info.workflowExecution;
    const escalation: LateResultEscalation = {
      identity,
      lateAuditId: auditId,
      dispatchedBy: dispatcher?.workflowId ?? 'none',
      summary: `${identity.tool} ${identity.callId}: may have taken effect after it was settled "not committed"`,
    };
    const client = context.client;
    const taskQueue =
      dispatcher === undefined
        ? context.info.taskQueue
        : (await client.workflow.getHandle(dispatcher.workflowId, dispatcher.runId).describe()).taskQueue;
    if (await startEscalation(client, escalation, taskQueue)) {
      context.log.warn('a result recorded after a "not committed" verdict: escalated to a human', {
        idempotencyKey: identity.idempotencyKey,
        auditId,
      });
    } else {
      context.log.error(
        'a late result was escalated in the store, but its reconciliation workflow could not be started: another run of it did not close',
        { idempotencyKey: identity.idempotencyKey },
      );
    }
  } catch (error) {
    context.log.error(
      'a late result was escalated in the store, but its reconciliation workflow could not be started',
      { idempotencyKey: identity.idempotencyKey, error: error instanceof Error ? error.name : 'unknown' },
    );
  }
}

/** Starts the escalation run; the key's previous run may still be closing, so an id in use is waited out. */
async function startEscalation(client: Client, escalation: LateResultEscalation, taskQueue: string): Promise<boolean> {
  const key = escalation.identity.idempotencyKey;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      await client.workflow.start(RECONCILE_WORKFLOW_TYPE, {
        workflowId: reconcileWorkflowId(key),
        taskQueue,
        args: [escalation],
        staticSummary: `Late result of ${escalation.identity.tool}: waiting for a human`,
        staticDetails: `Idempotency key \`${key}\`: a result (audit \`${escalation.lateAuditId}\`) says the write may have taken effect after the call of workflow \`${escalation.dispatchedBy}\` was settled not committed.`,
        typedSearchAttributes: [
          { key: IDEMPOTENCY_KEY_SA, value: key },
          { key: RECONCILE_STATE_SA, value: 'escalated' satisfies ReconcileState },
        ],
      });
      return true;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      await sleep(START_RETRY_MS);
    }
  }
  return false;
}
