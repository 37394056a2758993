import type { Client } from '@temporalio/client';
import { patchIdsOf } from './patch-markers.js';

/** What a run's history shows of its calls. */
export interface CallHistory {
  /** Local activities the run recorded (their markers): a call no person decides runs none. */
  readonly localActivities: number;
  /** Patch ids `patched()` recorded, in order. */
  readonly patches: string[];
  /** Activity types scheduled, in order. */
  readonly activities: string[];
  /** Their summaries (as the Temporal UI shows them). */
  readonly summaries: string[];
}

/** Reads the calls of workflow `workflowId` from its history. */
export async function callHistoryOf(client: Client, workflowId: string): Promise<CallHistory> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const markers = events.flatMap((e) => (e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes] : []));
  const text = (payloads: { data?: Uint8Array | null }[] | null | undefined) =>
    (payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8')).join(' ');
  const scheduled = events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e] : []));
  return {
    localActivities: markers.filter((m) => m.markerName === 'core_local_activity').length,
    patches: patchIdsOf(events),
    activities: scheduled.map((e) => e.activityTaskScheduledEventAttributes!.activityType?.name ?? ''),
    summaries: scheduled.map(
      (e) => JSON.parse(text(e.userMetadata?.summary ? [e.userMetadata.summary] : [])) as string,
    ),
  };
}
