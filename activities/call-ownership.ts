import { identifyCall } from '../src/contract/call-identity.js';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import type { WorkerStore } from '../src/store/tool-store.js';
import { activityWorkflow } from './call-context.js';
import type { CallIdentity } from '../src/contract/call-identity.js';

/**
 * Where a package activity may act on a call: in the workflow the call belongs to, or in the reconciliation of the
 * call's own key (which settles it, or dispatches it once more).
 */
export type CallSite = 'own_workflow' | 'reconciliation';

/** The workflow run an activity runs for, from its own coordinates (never from its input). */
export interface RunningWorkflow {
  readonly workflowId: string;
  readonly runId: string;
}

/** Where an activity acting on a call runs, as its coordinates say, and the workflow the call belongs to. */
export interface CallOwnership {
  readonly site: CallSite;
  /** The workflow the call belongs to: the workflow id of its operation id (`<workflow id>:<call id>`). */
  readonly workflowId: string;
  readonly running: RunningWorkflow;
}

/**
 * Binds a call named in an activity's input to the workflow the activity runs for. Activity input is written by
 * workflow code, and any workflow on the task queue can write any: a call counts as this activity's only when the
 * activity runs in the workflow the call belongs to — its operation id is `<workflow id>:<call id>`, as
 * `identifyCall` fixes it — or, where `sites` allows it, in the reconciliation workflow of the call's key; and its
 * idempotency key is the one `identifyCall` derives for its request (the tool's business key scoped by tenant, else
 * its operation id), so nothing acts under another call's key. `null` for anything else: the caller refuses the call
 * before it touches that other call's key, audit or records.
 */
export function callOwnership(
  tool: AnyToolImplementation,
  identity: CallIdentity,
  sites: readonly CallSite[],
): CallOwnership | null {
  const running = runningWorkflow();
  const suffix = `:${identity.callId}`;
  if (running === null || !identity.operationId.endsWith(suffix) || identity.operationId.length === suffix.length)
    return null;
  const workflowId = identity.operationId.slice(0, -suffix.length);
  // Arguments without a readable business key own the unkeyed identity (the call is refused, and audited under it).
  if (identifyCall(tool.facts, identity, workflowId).identity.idempotencyKey !== identity.idempotencyKey) return null;
  const site: CallSite | null =
    running.workflowId === workflowId
      ? 'own_workflow'
      : running.workflowId === reconcileWorkflowId(identity.idempotencyKey)
        ? 'reconciliation'
        : null;
  return site !== null && sites.includes(site) ? { site, workflowId, running } : null;
}

/** The workflow run the current activity runs for, or `null` outside a workflow. */
function runningWorkflow(): RunningWorkflow | null {
  const { workflowId, runId } = activityWorkflow();
  return runId === null ? null : { workflowId, runId };
}

/**
 * True when the key's reconciliation settled "not committed" by the authoritative system's receipt: what must be
 * established before a reconciliation releases the key as not committed or dispatches the write once more.
 */
export async function settledNotCommittedByReceipt(store: WorkerStore, idempotencyKey: string): Promise<boolean> {
  const reconciliation = await store.getReconciliation(idempotencyKey);
  return (
    reconciliation?.state === 'settled' &&
    reconciliation.outcome === 'not_committed' &&
    reconciliation.via === 'receipt'
  );
}
