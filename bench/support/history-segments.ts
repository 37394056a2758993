import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

/**
 * Where one single-call workflow spent its time, from the server's event timestamps (ms). The first workflow
 * task includes any local activity the workflow ran before scheduling its activity (the plugin's prepare step).
 */
export interface WorkflowSegments {
  readonly total: number;
  readonly firstWorkflowTask: number;
  readonly activityQueued: number;
  readonly activityRun: number;
  readonly closing: number;
  readonly events: number;
}

export const SEGMENT_LABELS: Readonly<Record<keyof WorkflowSegments, string>> = {
  total: 'workflow started → completed (server)',
  firstWorkflowTask: 'first workflow task (plugin: incl. prepare local activity)',
  activityQueued: 'activity scheduled → started',
  activityRun: 'activity started → completed',
  closing: 'activity completed → workflow completed',
  events: 'history events per workflow',
};

/** Where a reconciled write's workflow spent its time (ms), from its own history's event timestamps. */
export interface ReconcileSegments {
  /** Workflow started → the write activity timed out (the tool timeout, plus scheduling). */
  readonly untilTimeout: number;
  /** Timeout → the reconciliation child is running. */
  readonly childStart: number;
  /** Child running → child completed (open the record, ask the provider by key, record the result). */
  readonly child: number;
  /** Child completed → workflow completed. */
  readonly closing: number;
}

export const RECONCILE_SEGMENT_LABELS: Readonly<Record<keyof ReconcileSegments, string>> = {
  untilTimeout: 'workflow started → write activity timed out',
  childStart: 'timed out → reconciliation child started',
  child: 'child started → child completed (query by key, record)',
  closing: 'child completed → workflow completed',
};

/** Segments of a single-write workflow whose write timed out and was reconciled by a child. */
export function reconcileSegmentsOf(history: History): ReconcileSegments {
  const at = eventTime(history);
  const started = at((e) => e.workflowExecutionStartedEventAttributes, 'workflow started');
  const timedOut = at((e) => e.activityTaskTimedOutEventAttributes, 'activity timed out');
  const childStarted = at((e) => e.childWorkflowExecutionStartedEventAttributes, 'child started');
  const childDone = at((e) => e.childWorkflowExecutionCompletedEventAttributes, 'child completed');
  const completed = at((e) => e.workflowExecutionCompletedEventAttributes, 'workflow completed');
  return {
    untilTimeout: timedOut - started,
    childStart: childStarted - timedOut,
    child: childDone - childStarted,
    closing: completed - childDone,
  };
}

/**
 * What a reconciliation child did, from its own history: how long its first workflow task waited for a worker (a
 * new workflow's first task goes to the task queue everyone polls, behind every other new workflow's), and how many
 * workflow tasks, activities (local ones apart) and timers it took.
 */
export interface ReconcileChildWork {
  readonly firstTaskQueued: number;
  readonly workflowTasks: number;
  readonly activities: number;
  readonly localActivities: number;
  readonly timers: number;
}

export const RECONCILE_CHILD_LABELS: Readonly<Record<keyof ReconcileChildWork, string>> = {
  firstTaskQueued: "child's first workflow task: scheduled → started (ms)",
  workflowTasks: 'workflow tasks per child',
  activities: 'activities per child (open, query, settle)',
  localActivities: 'local activities per child (open and first query)',
  timers: 'timers per child (backoff between queries)',
};

/** The work of one reconciliation child; throws when its history has no workflow task. */
export function reconcileChildWorkOf(history: History): ReconcileChildWork {
  const events = history.events ?? [];
  const at = eventTime(history);
  const count = (pick: (e: HistoryEvent) => unknown) => events.filter((e) => pick(e) != null).length;
  return {
    firstTaskQueued:
      at((e) => e.workflowTaskStartedEventAttributes, 'workflow task started') -
      at((e) => e.workflowTaskScheduledEventAttributes, 'workflow task scheduled'),
    workflowTasks: count((e) => e.workflowTaskCompletedEventAttributes),
    activities: count((e) => e.activityTaskScheduledEventAttributes),
    localActivities: count((e) => (e.markerRecordedEventAttributes?.markerName === 'core_local_activity' ? e : null)),
    timers: count((e) => e.timerStartedEventAttributes),
  };
}

/** Looks up the time (ms) of the first event of a kind; throws when the history has none. */
function eventTime(history: History): (pick: (e: HistoryEvent) => unknown, what: string) => number {
  const events = history.events ?? [];
  return (pick, what) => {
    const event = events.find((e) => pick(e) != null);
    if (event === undefined) throw new Error(`history has no ${what} event`);
    return tsToMs(event.eventTime);
  };
}

/** Segments of a workflow that ran exactly one activity; throws when its history is not that shape. */
export function segmentsOf(history: History): WorkflowSegments {
  const at = eventTime(history);
  const started = at((e) => e.workflowExecutionStartedEventAttributes, 'workflow started');
  const firstTaskDone = at((e) => e.workflowTaskCompletedEventAttributes, 'workflow task completed');
  const scheduled = at((e) => e.activityTaskScheduledEventAttributes, 'activity scheduled');
  const activityStarted = at((e) => e.activityTaskStartedEventAttributes, 'activity started');
  const activityDone = at((e) => e.activityTaskCompletedEventAttributes, 'activity completed');
  const completed = at((e) => e.workflowExecutionCompletedEventAttributes, 'workflow completed');
  return {
    total: completed - started,
    firstWorkflowTask: firstTaskDone - started,
    activityQueued: activityStarted - scheduled,
    activityRun: activityDone - activityStarted,
    closing: completed - activityDone,
    events: history.events?.length ?? 0,
  };
}
