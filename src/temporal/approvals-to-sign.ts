import type { Client, WorkflowHandle } from '@temporalio/client';
import { canonicalJson } from '../contract/canonical-json.js';
import type { ApprovalRequest } from '../store/approval-requests.js';
import type { ToolStore } from '../store/tool-store.js';
import { PENDING_APPROVALS_QUERY } from '../wire/names.js';
import type { PendingApproval, RefusedDecision } from '../../workflows/pending-approvals.js';

/**
 * A call an approver may sign for, in the shape of the workflow's pending-approvals entry: but workflow, run, call,
 * preview, digest and times are the request the worker recorded in the store when the call began to wait (see
 * `ApprovalRequest`), in a run the Temporal server says is running, which the workflow itself still lists as pending
 * with exactly that request. Only `invalidDecisions` is the workflow's word (informational).
 */
export interface ApprovalToSign extends PendingApproval {
  /** The run's workflow type, as the server knows it (a type you do not know is a reason to look twice). */
  readonly workflowType: string;
}

/**
 * Why a call cannot be signed for: the workflow has no running run (`not_running`), the worker recorded no request
 * of this call in the running run (`not_recorded`), the request's wait is over (`expired`), the workflow does not
 * list the call as pending (`not_pending`: decided, or never asked), or it lists another request than the one the
 * worker recorded (`disagrees`).
 */
export type NotSignable = 'not_running' | 'not_recorded' | 'expired' | 'not_pending' | 'disagrees';

/** A call to sign for, or why there is none. */
export type SignableApproval =
  { readonly ok: true; readonly approval: ApprovalToSign } | { readonly ok: false; readonly reason: NotSignable };

/**
 * The call `callId` of the workflow the approver named, as they may sign for it — the one way an approval service
 * (and `tool-contract approve`) should find what to sign. What is signed comes from what the approver addressed and
 * from the worker's record, never from a workflow's answer: the workflow id is the one named, the run id the server's
 * (`describe()`), and call, digest, preview and deadline the store's request of that run. The workflow's own
 * pending-approvals query only has to agree with that record; an answer that names another workflow, run or request
 * (any workflow on the task queue can answer anything) is refused, as is a record the workflow does not confirm (a
 * row written to the database by someone else).
 */
export async function approvalToSign(
  client: Client,
  store: ToolStore,
  workflowId: string,
  callId: string,
  now: Date = new Date(),
): Promise<SignableApproval> {
  const handle = client.workflow.getHandle(workflowId);
  const run = await runningRun(handle);
  if (run === null) return { ok: false, reason: 'not_running' };
  const request = await store.getApprovalRequest({ workflowId, runId: run.runId, callId });
  if (request === null) return { ok: false, reason: 'not_recorded' };
  if (Date.parse(request.expiresAt) <= now.getTime()) return { ok: false, reason: 'expired' };
  const listed = (await pendingEntries(client, workflowId, run.runId)).filter((entry) => entry.callId === callId);
  if (listed.length === 0) return { ok: false, reason: 'not_pending' };
  const entry = listed.find((candidate) => agrees(candidate, request));
  return entry === undefined
    ? { ok: false, reason: 'disagrees' }
    : { ok: true, approval: toSign(request, run.workflowType, entry) };
}

/** The calls of one workflow run an approver may sign for now, or why they could not be read (its worker is down, say). */
export interface RunApprovals {
  readonly workflowId: string;
  readonly runId: string;
  /** The run's workflow type, as the server knows it. */
  readonly workflowType: string;
  readonly approvals: readonly ApprovalToSign[];
  readonly error: string | null;
}

/**
 * Every call an approver may sign for now (see {@link approvalToSign}): the store's requests still waiting (see
 * `ApprovalRequestFilter`), in runs the server says are running, that their workflow lists as pending with exactly
 * that request. A search
 * attribute set by a workflow, or a query answer without a record, lists nothing. With `workflowId`, that workflow's
 * latest run is read (and asked) whether or not it has requests, and a failure to read it is thrown; without, every
 * run with a request still waiting, each run that cannot be read reported with its `error`.
 */
export async function pendingApprovalsToSign(
  client: Client,
  store: ToolStore,
  filter: { readonly workflowId?: string; readonly now?: Date } = {},
): Promise<RunApprovals[]> {
  const at = filter.now ?? new Date();
  if (filter.workflowId !== undefined) {
    const { workflowId } = filter;
    const described = await client.workflow.getHandle(workflowId).describe();
    const run = { workflowId, runId: described.runId, workflowType: described.type };
    const requests =
      described.status.name === 'RUNNING'
        ? (await store.listApprovalRequests({ at, workflowId })).filter((request) => request.runId === run.runId)
        : [];
    return [{ ...run, approvals: await signable(client, run, requests), error: null }];
  }
  const byRun = new Map<string, ApprovalRequest[]>();
  for (const request of await store.listApprovalRequests({ at })) {
    const key = JSON.stringify([request.workflowId, request.runId]);
    byRun.set(key, [...(byRun.get(key) ?? []), request]);
  }
  const runs: RunApprovals[] = [];
  for (const requests of byRun.values()) {
    const { workflowId, runId } = requests[0] as ApprovalRequest;
    try {
      const described = await client.workflow.getHandle(workflowId, runId).describe();
      if (described.status.name !== 'RUNNING') continue;
      const run = { workflowId, runId, workflowType: described.type };
      runs.push({ ...run, approvals: await signable(client, run, requests), error: null });
    } catch (error) {
      runs.push({
        workflowId,
        runId,
        workflowType: '',
        approvals: [],
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return runs;
}

/** The requests of one run that its workflow lists as pending with exactly that request. */
async function signable(
  client: Client,
  run: { readonly workflowId: string; readonly runId: string; readonly workflowType: string },
  requests: readonly ApprovalRequest[],
): Promise<ApprovalToSign[]> {
  const listed = await pendingEntries(client, run.workflowId, run.runId);
  return requests.flatMap((request) => {
    const entry = listed.find((candidate) => candidate.callId === request.callId && agrees(candidate, request));
    return entry === undefined ? [] : [toSign(request, run.workflowType, entry)];
  });
}

/** The run a handle names (its latest run, without a run id), when the server says it is running. */
async function runningRun(
  handle: WorkflowHandle,
): Promise<{ readonly runId: string; readonly workflowType: string } | null> {
  const described = await handle.describe();
  return described.status.name === 'RUNNING' ? { runId: described.runId, workflowType: described.type } : null;
}

/** What a run answers to the pending-approvals query, as entries that name a call (anything else lists nothing). */
async function pendingEntries(client: Client, workflowId: string, runId: string): Promise<PendingApproval[]> {
  const answer: unknown = await client.workflow.getHandle(workflowId, runId).query<unknown>(PENDING_APPROVALS_QUERY);
  if (!Array.isArray(answer)) return [];
  return answer.filter(
    (entry): entry is PendingApproval =>
      typeof entry === 'object' && entry !== null && typeof (entry as { callId?: unknown }).callId === 'string',
  );
}

/** The recorded request, as an approver signs for it; of the workflow's entry, only its refused decisions. */
function toSign(request: ApprovalRequest, workflowType: string, entry: PendingApproval): ApprovalToSign {
  const {
    workflowId,
    runId,
    callId,
    tool,
    effect,
    arguments: args,
    hidden,
    requestSha256,
    requestedAt,
    expiresAt,
  } = request;
  const invalidDecisions: readonly RefusedDecision[] = Array.isArray(entry.invalidDecisions)
    ? entry.invalidDecisions
    : [];
  return {
    workflowId,
    runId,
    workflowType,
    callId,
    preview: { tool, effect, arguments: args, hidden, requestSha256 },
    requestedAt,
    expiresAt,
    invalidDecisions,
  };
}

/** True when the workflow's pending entry is exactly the worker's request: the same workflow, run, call and preview. */
function agrees(entry: PendingApproval, request: ApprovalRequest): boolean {
  try {
    const { preview } = entry;
    return (
      entry.workflowId === request.workflowId &&
      entry.runId === request.runId &&
      entry.callId === request.callId &&
      preview.tool === request.tool &&
      preview.effect === request.effect &&
      preview.requestSha256 === request.requestSha256 &&
      canonicalJson({ arguments: preview.arguments, hidden: preview.hidden }) ===
        canonicalJson({ arguments: request.arguments, hidden: request.hidden })
    );
  } catch {
    // An answer that is not even the shape of one (or has no canonical form) agrees with nothing.
    return false;
  }
}
