import type { StatePatchInput, StatePatchResult } from '../src/store/state-patch.js';
import { activityWorkflow } from './call-context.js';
import type { ToolRuntime } from './runtime.js';

export type { StatePatchResult } from '../src/store/state-patch.js';

/** A state patch as workflow code makes it: for the workflow's own state, which the activity fixes (never its input). */
export type WorkflowStatePatch = Omit<StatePatchInput, 'workflowId'>;

/**
 * Applies a state patch from workflow code: idempotent by patch id, optimistic on version, evidence checked. The patch
 * is for the state of the workflow the activity runs for, and may cite only that workflow's evidence: a workflow id
 * in the input counts for nothing, so no workflow on the task queue can write another's state.
 */
export function createApplyStatePatch(runtime: ToolRuntime): (input: WorkflowStatePatch) => Promise<StatePatchResult> {
  return (input) => runtime.store.applyStatePatch({ ...input, workflowId: activityWorkflow().workflowId });
}
