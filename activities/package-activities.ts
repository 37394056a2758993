import {
  CONFIRM_MEMORY_ACTIVITY,
  DESCRIBE_TOOLS_ACTIVITY,
  ESCALATE_ACTIVITY,
  MODEL_CALL_ACTIVITY,
  OPEN_AND_QUERY_ACTIVITY,
  OPEN_RECONCILIATION_ACTIVITY,
  PROPOSE_MEMORY_ACTIVITY,
  QUERY_OUTCOME_ACTIVITY,
  REQUEST_APPROVAL_ACTIVITY,
  SETTLE_CALL_ACTIVITY,
  STATE_PATCH_ACTIVITY,
  VERIFY_DECISION_ACTIVITY,
} from '../src/wire/names.js';
import type { ModelClient } from '../src/model/model-turn.js';
import { toApplicationFailure } from './tool-failure.js';
import { withHeartbeats } from './heartbeats.js';
import { createConfirmMemory, createProposeMemory } from './memory.js';
import { createModelCall } from './model-call.js';
import { createDescribeTools } from './describe-tools.js';
import { createRequestApproval } from './request-approval.js';
import {
  createEscalateReconciliation,
  createOpenAndQueryOutcome,
  createOpenReconciliation,
  createQueryOutcome,
} from './reconcile-call.js';
import type { ToolRuntime } from './runtime.js';
import { createSettleCall } from './settle-call.js';
import { createApplyStatePatch } from './state-patch.js';
import { createVerifyDecision } from './verify-decision.js';

type Activity = (input: never) => Promise<unknown>;

/**
 * The package's own activities, keyed by their activity type. Every error leaves through the one translator, so
 * workflow code sees a catalog code as the failure `type` and Temporal retries only what the catalog allows; each
 * heartbeats while it runs when scheduled with a heartbeat timeout (reconciliation's steps are).
 */
export function createPackageActivities(
  runtime: ToolRuntime,
  models: Readonly<Record<string, ModelClient>> = {},
): Record<string, (input: never) => Promise<unknown>> {
  const activities: Record<string, Activity> = {
    [DESCRIBE_TOOLS_ACTIVITY]: createDescribeTools(runtime),
    [VERIFY_DECISION_ACTIVITY]: createVerifyDecision(runtime),
    [REQUEST_APPROVAL_ACTIVITY]: createRequestApproval(runtime),
    [SETTLE_CALL_ACTIVITY]: createSettleCall(runtime),
    [OPEN_RECONCILIATION_ACTIVITY]: createOpenReconciliation(runtime),
    [QUERY_OUTCOME_ACTIVITY]: createQueryOutcome(runtime),
    [OPEN_AND_QUERY_ACTIVITY]: createOpenAndQueryOutcome(runtime),
    [ESCALATE_ACTIVITY]: createEscalateReconciliation(runtime),
    [STATE_PATCH_ACTIVITY]: createApplyStatePatch(runtime),
    [PROPOSE_MEMORY_ACTIVITY]: createProposeMemory(runtime),
    [CONFIRM_MEMORY_ACTIVITY]: createConfirmMemory(runtime),
    [MODEL_CALL_ACTIVITY]: createModelCall(runtime.registry, models),
  };
  return Object.fromEntries(Object.entries(activities).map(([name, activity]) => [name, translated(activity)]));
}

function translated(activity: Activity): Activity {
  return async (input) => {
    try {
      return await withHeartbeats(() => activity(input));
    } catch (error) {
      throw toApplicationFailure(error);
    }
  };
}
