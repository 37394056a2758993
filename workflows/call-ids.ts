import { workflowInfo } from '@temporalio/workflow';
import { workflowCallId } from '../src/wire/ids.js';

// Module state is per workflow execution in the TypeScript SDK's sandbox, and advances in workflow-code order, so
// the sequence is deterministic on replay.
let sequence = 0;

/**
 * The next call id of this workflow run (`call-1`, `call-2`, …). Deterministic; idempotency keys are derived from
 * the workflow id and the call id, so a workflow that continues as new should pass its own call ids.
 */
export function nextCallId(): string {
  sequence += 1;
  return workflowCallId(sequence);
}

/** The workflow id, for keys derived in workflow code. */
export function currentWorkflowId(): string {
  return workflowInfo().workflowId;
}
