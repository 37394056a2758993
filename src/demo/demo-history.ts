import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { APPROVAL_SIGNAL, APPROVAL_UPDATE, RECONCILE_WORKFLOW_TYPE, type ApprovalDecision } from '../temporal/index.js';

/** What the demo workflow's history proves, beyond its result. */
export interface DemoHistoryFacts {
  /** Workflow ids of the reconciliation children it started. */
  readonly reconciliationChildren: readonly string[];
  /** Activity types whose attempt timed out (a write that timed out has an unknown outcome). */
  readonly timedOutActivities: readonly string[];
  /** Approval decisions the workflow received (accepted updates and signals), in order. */
  readonly decisions: readonly ApprovalDecision[];
}

/** Reads the facts from the recorded history (the authority on what happened, not the demo's own observations). */
export async function readHistoryFacts(handle: WorkflowHandle): Promise<DemoHistoryFacts> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Map<string, string>();
  const reconciliationChildren: string[] = [];
  const timedOutActivities: string[] = [];
  const decisions: ApprovalDecision[] = [];
  for (const event of events) {
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) scheduled.set(String(event.eventId), activity.activityType?.name ?? '');
    const timedOut = event.activityTaskTimedOutEventAttributes;
    if (timedOut) timedOutActivities.push(scheduled.get(String(timedOut.scheduledEventId)) ?? '');
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowType?.name === RECONCILE_WORKFLOW_TYPE && child.workflowId) reconciliationChildren.push(child.workflowId);
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (update?.name === APPROVAL_UPDATE) decisions.push(...decode(update.args?.payloads));
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === APPROVAL_SIGNAL) decisions.push(...decode(signal.input?.payloads));
  }
  return { reconciliationChildren, timedOutActivities, decisions };
}

function decode(payloads: Parameters<typeof defaultPayloadConverter.fromPayload>[0][] | null | undefined): ApprovalDecision[] {
  return (payloads ?? []).flatMap((payload) => {
    try {
      const value = defaultPayloadConverter.fromPayload<ApprovalDecision>(payload);
      return value !== null && typeof value === 'object' && typeof value.approver === 'string' ? [value] : [];
    } catch {
      return [];
    }
  });
}
