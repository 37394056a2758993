// `temporal-tool-contract/temporal`: the worker/client side of the Temporal runtime. Named explicitly.
export { ToolContractPlugin, type ToolContractPluginOptions } from './plugin.js';
export type { ProviderRevision } from '../contract/provider-revisions.js';
export { submitApprovalDecision, submitResolution } from './approval-client.js';
export {
  approvalToSign,
  pendingApprovalsToSign,
  type ApprovalToSign,
  type NotSignable,
  type SignableApproval,
  type RunApprovals,
} from './approvals-to-sign.js';
// Names stored in history and visibility, for clients that signal, query or list the package's workflows.
export {
  RECONCILE_WORKFLOW_TYPE,
  AGENT_LOOP_WORKFLOW_TYPE,
  MCP_TOOL_CALL_WORKFLOW_TYPE,
  RESERVED_ACTIVITY_PREFIX,
  APPROVAL_SIGNAL,
  APPROVAL_UPDATE,
  PENDING_APPROVALS_QUERY,
  APPROVAL_DECISIONS_QUERY,
  RESOLVE_OUTCOME_SIGNAL,
  RESOLVE_OUTCOME_UPDATE,
  RECONCILE_STATE_QUERY,
  AGENT_TRANSCRIPT_QUERY,
} from '../wire/names.js';
export {
  APPROVAL_PENDING_SA,
  APPROVAL_PENDING_VISIBILITY_QUERY,
  RECONCILE_STATE_SA,
  IDEMPOTENCY_KEY_SA,
  SEARCH_ATTRIBUTE_KEYS,
  RECONCILE_STATES,
  type ReconcileState,
} from '../wire/search-attributes.js';
export { reconcileWorkflowId } from '../wire/ids.js';
export type { ToolCallResult } from '../../activities/tool-activity.js';
export {
  TOOL_RESULTS_METRIC,
  FUNNEL_DURATION_METRIC,
  RECONCILIATION_STEPS_METRIC,
  NO_ERROR_CODE,
} from '../../activities/call-metrics.js';
export {
  startContractGauges,
  PENDING_APPROVALS_METRIC,
  UNSETTLED_CALLS_METRIC,
  DEFAULT_GAUGE_INTERVAL_MS,
  type ContractGaugesOptions,
  type ContractGauges,
} from './contract-gauges.js';
export type {
  PendingApproval,
  ApprovalDecision,
  ApprovalUpdateResult,
  ApprovalDecisions,
  RefusedDecision,
} from '../../workflows/approvals.js';
export type { DecisionAnswer } from '../../workflows/decision-inbox.js';
export type { ResolveOutcomeSignal, ReconcileStatus, RefusedResolution } from '../../workflows/reconcile-tool-call.js';
export type { DecisionRecord } from '../contract/decision-record.js';
export { DECISION_REFUSALS, type DecisionRefusal } from '../wire/decisions.js';
// The MCP server through Temporal is `temporal-tool-contract/temporal/mcp`: it needs the optional MCP SDK, which a
// worker does not.
