// Workflow-side API of temporal-tool-contract. Sandbox-only: users re-export it from their workflows module
// (`export * from 'temporal-tool-contract/workflows'`) so the reconciliation workflow is registered on their worker.
export { reconcileWorkflowId } from '../src/wire/ids.js';
export {
  callTool,
  WORKFLOW_PROVIDER,
  type CallArgs,
  type CallResult,
  type CallToolOptions,
  type ToolArgs,
  type ToolData,
  type ToolCallResult,
  type TypedToolCallResult,
} from './call/call-tool.js';
export { mcpToolCall, type McpToolCallInput, type McpCallOptions } from './mcp-tool-call.js';
export {
  callTools,
  DEFAULT_BATCH_CONCURRENCY,
  type BatchCallRequest,
  type CallToolsOptions,
  type CorrelatedResult,
} from './call-tools.js';
export { PACKAGE_CALL_DEFAULTS } from './call/dispatch-step.js';
export { toolCallCounts, resumeToolCallCounts } from './call/pipeline.js';
export { writesHaltedBy, resumeWriteHalt, type InvariantFailurePolicy } from './write-halt.js';
export type { ReplacedAttempt } from '../activities/tool-activity.js';
export {
  installApprovalHandlers,
  approvalSignal,
  approvalUpdate,
  pendingApprovalsQuery,
  approvalDecisionsQuery,
  type ApprovalDecision,
  type ApprovalUpdateResult,
  type ApprovalDecisions,
  type PendingApproval,
  type RefusedDecision,
} from './approvals.js';
export type { DecisionAnswer } from './decision-inbox.js';
export {
  reconcileToolCall,
  resolveOutcomeSignal,
  resolveOutcomeUpdate,
  reconcileStateQuery,
  type ResolveOutcomeSignal,
  type ReconcileStatus,
  type ReconcileState,
  type RefusedResolution,
} from './reconcile-tool-call.js';
export { DEFAULT_RECONCILE_POLICY, type ReconcilePolicy } from './reconcile-policy.js';
export { applyStatePatch, type WorkflowStatePatch, type StatePatchResult } from './state-patch.js';
export {
  proposeMemory,
  confirmMemory,
  type MemoryProposalInput,
  type WorkflowMemoryConfirmation,
  type MemoryOutcome,
  type MemoryRecord,
} from './memory.js';
export {
  agentLoop,
  agentTranscriptQuery,
  type AgentLoopInput,
  type AgentLoopResult,
  type AgentLoopStatus,
  type AgentLoopCarry,
  type AgentToolOptions,
  type CitationPolicy,
  type AgentModelConfig,
  type ModelMessage,
  type ModelSettings,
} from './agent-loop.js';
export {
  checkCitations,
  type CitableResult,
  type CitationReport,
  type QuoteMismatch,
  type UncitedClaim,
} from './citations.js';
