import { scheduleActivity } from '@temporalio/workflow';
import type { CallIdentity } from '../src/contract/call-identity.js';
import type { SettleCallInput, Settlement } from '../activities/settle-call.js';
import type { ToolCallResult } from '../activities/tool-activity.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { SETTLE_CALL_ACTIVITY } from '../src/wire/names.js';

/** Timeouts of one settle activity; without them, 30 s per attempt and no heartbeat. */
export interface SettleTimeouts {
  readonly startToCloseMs: number;
  readonly heartbeatMs: number;
}

/** Builds and records the result of a call that ends without running its handler now (the settle activity). */
export function settle(
  identity: CallIdentity,
  settlement: Settlement,
  timeouts?: SettleTimeouts,
): Promise<ToolCallResult> {
  const input: SettleCallInput = { identity, settlement };
  return scheduleActivity<ToolCallResult>(SETTLE_CALL_ACTIVITY, [input], {
    startToCloseTimeout: timeouts?.startToCloseMs ?? '30s',
    ...(timeouts === undefined ? {} : { heartbeatTimeout: timeouts.heartbeatMs }),
    retry: { maximumAttempts: 10, nonRetryableErrorTypes: nonRetryableCodes() },
    summary: `${settlement.kind}: ${identity.tool} ${identity.callId}`,
  });
}
