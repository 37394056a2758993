/**
 * Every name this package stores in Temporal history: workflow types, activity types, signals, queries and updates.
 * They are public API (renaming one breaks running workflows and replay), so each is defined here once and every
 * side — workflow code, activities, the plugin, clients and the CLI — reads it from here.
 */

/** Workflow type of the reconciliation child (must equal the exported workflow function's name). */
export const RECONCILE_WORKFLOW_TYPE = 'reconcileToolCall';
/** Workflow type of the built-in agent loop (must equal the exported workflow function's name). */
export const AGENT_LOOP_WORKFLOW_TYPE = 'agentLoop';

/** Prefix reserved for the package's own activity types; no tool may be named with it. */
export const RESERVED_ACTIVITY_PREFIX = 'ttc.';

/** Activity types of the package's own activities (tool activities are named after their tool). */
export const SETTLE_CALL_ACTIVITY = 'ttc.settleToolCall';
export const OPEN_RECONCILIATION_ACTIVITY = 'ttc.openReconciliation';
export const QUERY_OUTCOME_ACTIVITY = 'ttc.queryOutcome';
/** A reconciliation round's opening and its first query in one activity (a local activity when it can be). */
export const OPEN_AND_QUERY_ACTIVITY = 'ttc.openAndQueryOutcome';
export const ESCALATE_ACTIVITY = 'ttc.escalateReconciliation';
export const STATE_PATCH_ACTIVITY = 'ttc.applyStatePatch';
/** Memory proposed and confirmed from workflow code (seed 000 §17). */
export const PROPOSE_MEMORY_ACTIVITY = 'ttc.proposeMemory';
export const CONFIRM_MEMORY_ACTIVITY = 'ttc.confirmMemory';
/** The agent loop's model call (one model turn). */
export const MODEL_CALL_ACTIVITY = 'ttc.callModel';
/** Local activity that checks an approval or resolution against the worker's key before it may decide anything. */
export const VERIFY_DECISION_ACTIVITY = 'ttc.verifyDecision';
/**
 * Local activity that checks a call beginning to wait for approval and records it for the approver (the store's
 * approval request): the one worker step before a call runs, and only for a tool a person decides.
 */
export const REQUEST_APPROVAL_ACTIVITY = 'ttc.requestApproval';
/** Local activity that gives workflow code the facts of tools it calls by name (once per run and name). */
export const DESCRIBE_TOOLS_ACTIVITY = 'ttc.describeTools';

/** Approval decisions for a pending call: signal (required interface) and update (validated, immediate answer). */
export const APPROVAL_SIGNAL = 'ttc.approval';
export const APPROVAL_UPDATE = 'ttc.decideApproval';
export const PENDING_APPROVALS_QUERY = 'ttc.pendingApprovals';
/** The decisions a workflow took and the last ones it refused (with why). */
export const APPROVAL_DECISIONS_QUERY = 'ttc.approvalDecisions';

/** Human resolution of an escalated reconciliation, and the reconciliation's state. */
export const RESOLVE_OUTCOME_SIGNAL = 'ttc.resolveOutcome';
/** The same resolution as an update: the sender is told at once whether it settled the call, and if not, why. */
export const RESOLVE_OUTCOME_UPDATE = 'ttc.decideResolution';
export const RECONCILE_STATE_QUERY = 'ttc.reconcileState';

/** The agent loop's conversation so far (model results only, never audits). */
export const AGENT_TRANSCRIPT_QUERY = 'ttc.agentTranscript';

/** Workflow type of one MCP `tools/call` served through Temporal (must equal the exported workflow function's name). */
export const MCP_TOOL_CALL_WORKFLOW_TYPE = 'mcpToolCall';
