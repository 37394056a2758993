import type { Client } from '@temporalio/client';
import type { PendingApproval } from '../temporal/index.js';
import { PENDING_APPROVALS_QUERY } from '../wire/names.js';
import { APPROVAL_PENDING_VISIBILITY_QUERY } from '../wire/search-attributes.js';
import { toCliError } from './temporal-errors.js';

/** One workflow with calls waiting for a decision. */
export interface PendingWorkflow {
  readonly workflowId: string;
  readonly runId: string | null;
  readonly workflowType: string | null;
  readonly approvals: readonly PendingApproval[];
  /** Why the pending calls could not be read (e.g. no worker is running), else `null`. */
  readonly error: string | null;
}

/**
 * Lists calls waiting for approval: of one workflow (by query), or of every workflow whose `TtcApprovalPending`
 * search attribute is true (visibility, then a query per workflow). Visibility lags a little behind the workflow.
 */
export async function listPendingApprovals(client: Client, options: { readonly workflowId?: string } = {}): Promise<{ readonly workflows: PendingWorkflow[] }> {
  if (options.workflowId !== undefined) {
    const workflowId = options.workflowId;
    try {
      const approvals = await client.workflow.getHandle(workflowId).query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
      return { workflows: [{ workflowId, runId: null, workflowType: null, approvals, error: null }] };
    } catch (error) {
      throw toCliError(error, workflowId);
    }
  }
  const workflows: PendingWorkflow[] = [];
  try {
    for await (const info of client.workflow.list({ query: APPROVAL_PENDING_VISIBILITY_QUERY })) {
      const base = { workflowId: info.workflowId, runId: info.runId, workflowType: info.type };
      try {
        const approvals = await client.workflow.getHandle(info.workflowId, info.runId).query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
        workflows.push({ ...base, approvals, error: null });
      } catch (error) {
        workflows.push({ ...base, approvals: [], error: error instanceof Error ? error.message : String(error) });
      }
    }
  } catch (error) {
    throw toCliError(error, '(visibility)');
  }
  return { workflows };
}
