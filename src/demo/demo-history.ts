import type { WorkflowHandle } from '@temporalio/client';
import { RECONCILE_WORKFLOW_TYPE } from '../temporal/index.js';

/** What the demo workflow's history proves, beyond its result. */
export interface DemoHistoryFacts {
  /** Workflow ids of the reconciliation children it started. */
  readonly reconciliationChildren: readonly string[];
  /** Activity types whose attempt timed out (a write that timed out has an unknown outcome). */
  readonly timedOutActivities: readonly string[];
}

/** Reads the facts from the recorded history (the authority on what happened, not the demo's own observations). */
export async function readHistoryFacts(handle: WorkflowHandle): Promise<DemoHistoryFacts> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Map<string, string>();
  const reconciliationChildren: string[] = [];
  const timedOutActivities: string[] = [];
  for (const event of events) {
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) scheduled.set(String(event.eventId), activity.activityType?.name ?? '');
    const timedOut = event.activityTaskTimedOutEventAttributes;
    if (timedOut) timedOutActivities.push(scheduled.get(String(timedOut.scheduledEventId)) ?? '');
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowType?.name === RECONCILE_WORKFLOW_TYPE && child.workflowId)
      reconciliationChildren.push(child.workflowId);
  }
  return { reconciliationChildren, timedOutActivities };
}
