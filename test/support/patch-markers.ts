import type protos from '@temporalio/proto';

type HistoryEvent = protos.temporal.api.history.v1.IHistoryEvent;

/** The patch ids of a history's `core_patch` markers, in order (what `patched()` recorded). */
export function patchIdsOf(events: readonly HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = Object.values(marker.details ?? {})
      .flatMap((details) => details.payloads ?? [])
      .map((payload) => Buffer.from(payload.data ?? []).toString('utf8'))
      .join('');
    const id = /"id":"([^"]+)"/.exec(data)?.[1];
    return id === undefined ? [] : [id];
  });
}
