import type { Context as ActivityContext } from '@temporalio/activity';

/**
 * How long after an activity's start-to-close timeout sdk-core cancels it on its own: its local timers add this
 * buffer "to avoid racing with server's own tracking of the timeout" (`local_timeout_buffer_for_activities`,
 * default 5 s; the TypeScript worker does not expose it). The attempt's own deadline signal aborts at the deadline,
 * so on a live worker a request that passed its fence cannot still be leaving after deadline plus this buffer.
 */
export const SDK_LOCAL_TIMEOUT_BUFFER_MS = 5_000;

/** When the current attempt's start-to-close timeout runs out, by this worker's clock, and a signal aborted then. */
export interface AttemptDeadline {
  /** Epoch milliseconds (worker clock). */
  readonly atMs: number;
  /** Aborted at the deadline, or earlier when Temporal cancels the activity (a heartbeat saw a cancel or a timeout). */
  readonly signal: AbortSignal;
}

/**
 * The deadline of the current attempt, counted from `startedAtMs` (when the worker began to run it: at or a little
 * after the server started its timer, so this deadline is at or a little after the server's). Without a
 * start-to-close timeout, schedule-to-close bounds the attempt instead.
 */
export function attemptDeadline(context: ActivityContext, startedAtMs: number): AttemptDeadline {
  const { startToCloseTimeoutMs, scheduleToCloseTimeoutMs, scheduledTimestampMs } = context.info;
  const atMs =
    startToCloseTimeoutMs > 0 ? startedAtMs + startToCloseTimeoutMs : scheduledTimestampMs + scheduleToCloseTimeoutMs;
  // Temporal's own cancellation alone would reach the handler only on sdk-core's local timer, 5 s past the deadline.
  const signal = AbortSignal.any([context.cancellationSignal, AbortSignal.timeout(Math.max(0, atMs - Date.now()))]);
  return { atMs, signal };
}
