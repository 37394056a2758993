import type { Client } from '@temporalio/client';
import type { ToolStore } from '../store/index.js';
import { pendingApprovalsToSign, type RunApprovals } from '../temporal/index.js';
import { toCliError } from './temporal-errors.js';

/**
 * Lists calls waiting for approval that an approver may sign for (see `pendingApprovalsToSign`): of one workflow, or
 * of every workflow with an approval request recorded in the store and still within its wait. What is shown of each
 * call — tool, effect, preview, digest, deadline — is what the worker recorded, in a run the server says is running,
 * which the workflow itself still lists as pending with exactly that request; a workflow's search attribute or query
 * answer alone lists nothing.
 */
export async function listPendingApprovals(
  client: Client,
  store: ToolStore,
  options: { readonly workflowId?: string } = {},
): Promise<{ readonly workflows: RunApprovals[] }> {
  try {
    return {
      workflows: await pendingApprovalsToSign(
        client,
        store,
        options.workflowId === undefined ? {} : { workflowId: options.workflowId },
      ),
    };
  } catch (error) {
    throw toCliError(error, options.workflowId ?? '(every workflow)');
  }
}
