import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { CancellationScope, startChild, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { ToolCallResult } from '../activities/tool-activity.js';
import { RECONCILE_WORKFLOW_TYPE } from '../src/wire/names.js';
import type { ReconcileInput } from './reconcile-policy.js';

/** The start options of a reconciliation child (its input included). */
export type ReconcileChildOptions = ChildWorkflowOptions & { readonly args: [ReconcileInput] };

/**
 * Starts the reconciliation of a write whose workflow was cancelled while it ran, outside the cancelled scope (a
 * cancelled scope can start nothing), and returns once it started without waiting for it: the child is abandoned
 * with its parent (`ParentClosePolicy.ABANDON`) and settles the write by key after the parent closed. When a
 * reconciliation of the key already runs (another workflow's), that one owns it.
 */
export async function startReconciliationAfterCancel(options: ReconcileChildOptions): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    try {
      await startChild<(input: ReconcileInput) => Promise<ToolCallResult>>(RECONCILE_WORKFLOW_TYPE, options);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  });
}
