// `temporal-tool-contract/temporal`: the worker/client side of the Temporal runtime. Named explicitly.
export { ToolContractPlugin, type ToolContractPluginOptions } from './plugin.js';
export { submitApprovalDecision } from './approval-client.js';
export { toolActivityInterceptors } from './tool-activity-interceptor.js';
export { toApplicationFailure, INTERNAL_FAILURE_TYPE } from './tool-failure.js';
export {
  RECONCILE_WORKFLOW_TYPE,
  PREPARE_CALL_ACTIVITY,
  SETTLE_CALL_ACTIVITY,
  OPEN_RECONCILIATION_ACTIVITY,
  QUERY_OUTCOME_ACTIVITY,
  ESCALATE_ACTIVITY,
  STATE_PATCH_ACTIVITY,
  RESERVED_ACTIVITY_PREFIX,
  APPROVAL_SIGNAL,
  APPROVAL_UPDATE,
  PENDING_APPROVALS_QUERY,
  RESOLVE_OUTCOME_SIGNAL,
  RECONCILE_STATE_QUERY,
  APPROVAL_PENDING_SA,
  RECONCILE_STATE_SA,
  IDEMPOTENCY_KEY_SA,
  SEARCH_ATTRIBUTE_KEYS,
  MODEL_CALL_ACTIVITY,
  AGENT_LOOP_WORKFLOW_TYPE,
  AGENT_TRANSCRIPT_QUERY,
} from './names.js';
export type { ToolCallInput, ToolCallResult } from '../../activities/tool-call.js';
export type { PendingApproval, ApprovalDecision, ApprovalUpdateResult } from '../../workflows/approvals.js';
export type { ResolveOutcomeSignal, ReconcileStatus, ReconcileState } from '../../workflows/reconcile-tool-call.js';
