import type { Context as ActivityContext } from '@temporalio/activity';
import { isToolError, ToolError } from '../src/contract/tool-error.js';

/**
 * What a handler's throw means once nobody waits for the attempt any more: `CANCELLED` for a plain throw (the abort
 * itself, or whatever the aborted request turned into). That is a cancel request delivered by a heartbeat, or a
 * heartbeat told the activity is gone — what a workflow cancel usually looks like, since the cancelled workflow
 * closes without waiting for its activities. A `ToolError` keeps its own code: the handler knew more (the fence's
 * "did not start", say). `null` otherwise: a deadline, a heartbeat timeout or a worker shutdown keeps the attempt's
 * usual result (a read may run again elsewhere).
 */
export function cancelledCallError(activity: ActivityContext, thrown: unknown): ToolError | null {
  const details = activity.cancellationDetails;
  if (details === undefined || isToolError(thrown)) return null;
  if (details.cancelRequested) return new ToolError('CANCELLED', { reason: 'cancel_requested' });
  if (details.notFound) return new ToolError('CANCELLED', { reason: 'activity_gone' });
  return null;
}
