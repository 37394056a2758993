import { describeThrown } from '../src/contract/call-failure.js';
import type { AnyToolDefinition } from '../src/contract/define-tool.js';
import { checkArguments } from '../src/contract/execute-tool.js';
import { businessIdempotencyKey, idempotencyScopeOf } from '../src/contract/idempotency-key.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import type { ToolStore } from '../src/store/tool-store.js';
import { activityWorkflow } from './call-context.js';
import type { CallIdentity } from './call-identity.js';

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
 * activity runs in the workflow the call belongs to — its operation id is `<workflow id>:<call id>`, as `prepareCall`
 * fixes it — or, where `sites` allows it, in the reconciliation workflow of the call's key; and its idempotency key
 * is the one its request owns (the tool's business key for the arguments the input layer accepts, scoped by tenant,
 * else its operation id), so nothing acts under another call's key. `null` for anything else: the caller refuses the
 * call before it touches that other call's key, audit or records.
 */
export function callOwnership(tool: AnyToolDefinition, identity: CallIdentity, sites: readonly CallSite[]): CallOwnership | null {
  const running = runningWorkflow();
  const suffix = `:${identity.callId}`;
  if (running === null || !identity.operationId.endsWith(suffix) || identity.operationId.length === suffix.length) return null;
  const checked = checkArguments(tool, identity.args);
  if (identity.idempotencyKey !== ownedKey(tool, identity.principal.tenant, checked.ok ? checked.arguments : identity.args, identity.operationId)) return null;
  const workflowId = identity.operationId.slice(0, -suffix.length);
  const site: CallSite | null = running.workflowId === workflowId ? 'own_workflow' : running.workflowId === reconcileWorkflowId(identity.idempotencyKey) ? 'reconciliation' : null;
  return site !== null && sites.includes(site) ? { site, workflowId, running } : null;
}

/** The workflow run the current activity runs for, or `null` outside a workflow. */
function runningWorkflow(): RunningWorkflow | null {
  const { workflowId, runId } = activityWorkflow();
  return runId === null ? null : { workflowId, runId };
}

/**
 * The idempotency key a request owns, as `prepareCall` derives it: its business key, else its operation id. `null`
 * when the tool's key function throws on these arguments.
 */
function ownedKey(tool: AnyToolDefinition, tenant: string, args: unknown, operationId: string): string | null {
  const key = businessKeyOf(tool, tenant, args);
  return key.ok ? (key.value ?? operationId) : null;
}

/** A tool's business key for some arguments (`null` when it derives none), or what its key function threw. */
export type BusinessKey = { readonly ok: true; readonly value: string | null } | { readonly ok: false; readonly thrown: Record<string, unknown> };

/** The tool's business key for these arguments, scoped by tenant and by the tool's idempotency scope (the same under every name of the tool). */
export function businessKeyOf(tool: AnyToolDefinition, tenant: string, args: unknown): BusinessKey {
  if (tool.idempotencyKey === undefined) return { ok: true, value: null };
  try {
    return { ok: true, value: businessIdempotencyKey(idempotencyScopeOf(tool), tenant, String(tool.idempotencyKey(args))) };
  } catch (thrown) {
    return { ok: false, thrown: describeThrown(thrown) };
  }
}

/**
 * True when the key's reconciliation settled "not committed" by the authoritative system's receipt: what must be
 * established before a reconciliation releases the key as not committed or dispatches the write once more.
 */
export async function settledNotCommittedByReceipt(store: ToolStore, idempotencyKey: string): Promise<boolean> {
  const reconciliation = await store.getReconciliation(idempotencyKey);
  return reconciliation?.state === 'settled' && reconciliation.outcome === 'not_committed' && reconciliation.via === 'receipt';
}
