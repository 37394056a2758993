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
export const PREPARE_CALL_ACTIVITY = 'ttc.prepareToolCall';
export const SETTLE_CALL_ACTIVITY = 'ttc.settleToolCall';
export const OPEN_RECONCILIATION_ACTIVITY = 'ttc.openReconciliation';
export const QUERY_OUTCOME_ACTIVITY = 'ttc.queryOutcome';
/** A reconciliation round's opening and its first query in one activity (runs with {@link RECONCILE_OPENS_IN_QUERY_PATCH}). */
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
/** Local activity that records a call beginning to wait for approval, for the approver (the store's approval request). */
export const REQUEST_APPROVAL_ACTIVITY = 'ttc.requestApproval';

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

/**
 * Patch id (a marker in history) of runs whose decisions must be verified by the worker before they count. Runs
 * recorded without it decide as they did when they started, so their histories still replay.
 */
export const DECISIONS_VERIFIED_PATCH = 'ttc.decisions-verified';

/** The agent loop's conversation so far (model results only, never audits). */
export const AGENT_TRANSCRIPT_QUERY = 'ttc.agentTranscript';

/**
 * Patch id (`patched()`) of bounded batches: a batch larger than its concurrency limit fans out at most that many
 * calls at once. Runs recorded before it fanned such a batch out all at once, and keep doing so on replay.
 */
export const BOUNDED_BATCH_PATCH = 'ttc.bounded-batch';

/** Workflow type of one MCP `tools/call` served through Temporal (must equal the exported workflow function's name). */
export const MCP_TOOL_CALL_WORKFLOW_TYPE = 'mcpToolCall';

/**
 * Patch id of runs in which a workflow cancel while a write is scheduled or running starts that write's
 * reconciliation (abandoned, so it outlives the cancelled run). Runs recorded before it left the write's key claimed
 * and unreconciled, and still do on replay. Asked only when such a cancel happens.
 */
export const CANCELLED_WRITE_RECONCILES_PATCH = 'ttc.cancelled-write-reconciles';

/**
 * Patch id of runs whose reconciliation child of a write with an unknown outcome is started so that a cancel of
 * the run does not reach it (`ChildWorkflowCancellationType.ABANDON`): the run closes as cancelled at once and the
 * child goes on settling the key. Runs recorded before it asked the child to cancel and waited for that. Asked when
 * the child starts, not at the cancel: the cancellation type is part of the child's start command, so it cannot
 * be chosen later without starting the child non-cancellable and re-issuing the old cancel by hand, whose order
 * among the other commands of that workflow task (a batch's other cancels) would have to match recorded histories.
 */
export const RECONCILE_OUTLIVES_CANCEL_PATCH = 'ttc.reconcile-outlives-cancel';

/**
 * Patch id of reconciliation runs that open a round (fence the unknown dispatch, open the record) and ask the
 * authoritative system the first time in one activity, when nothing has to be waited for in between: one activity
 * and one workflow task fewer per round. Runs recorded before it opened the round in an activity of its own, and
 * still do on replay.
 */
export const RECONCILE_OPENS_IN_QUERY_PATCH = 'ttc.reconcile-opens-in-query';

/**
 * Patch id of reconciliation runs that open a round and ask the first time ({@link OPEN_AND_QUERY_ACTIVITY}) as a
 * local activity when its activities run on the reconciliation's own task queue: a write found at once then settles
 * in the child's first workflow task — no activity task, no second workflow task waiting for the workflow thread.
 * The step, its idempotence and its retries are the same. Runs recorded before it scheduled that step as an
 * activity, and still do on replay.
 */
export const RECONCILE_FIRST_QUERY_LOCAL_PATCH = 'ttc.reconcile-first-query-local';

/**
 * Patch id of runs in which a read of a tool the run already prepared once — a read with no approval and no business
 * key — skips the `prepare` local activity: the workflow knows how to dispatch it from that earlier, recorded
 * preparation, and the tool activity validates it (as it validates every call). One local activity, one marker and
 * one workflow activation fewer per such call. Runs recorded before it prepared every call, and still do on replay.
 */
export const KNOWN_READS_SKIP_PREPARE_PATCH = 'ttc.known-reads-skip-prepare';
