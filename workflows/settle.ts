import { scheduleActivity } from '@temporalio/workflow';
import type { CallIdentity } from '../activities/call-identity.js';
import type { SettleCallInput, Settlement } from '../activities/settle-call.js';
import type { ToolCallResult } from '../activities/tool-activity.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { SETTLE_CALL_ACTIVITY } from '../src/wire/names.js';

/** Builds and records the result of a call that ends without running its handler now (the settle activity). */
export function settle(identity: CallIdentity, settlement: Settlement): Promise<ToolCallResult> {
  const input: SettleCallInput = { identity, settlement };
  return scheduleActivity<ToolCallResult>(SETTLE_CALL_ACTIVITY, [input], {
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 10, nonRetryableErrorTypes: nonRetryableCodes() },
    summary: `${settlement.kind}: ${identity.tool} ${identity.callId}`,
  });
}
