import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Every name this package stores in Temporal history or visibility: workflow types, activity types, signals,
 * queries, updates and search attributes. They are public API (renaming one breaks running workflows), so each is
 * defined here once. This module is sandbox-safe; `src/temporal/names.ts` re-exports it for worker/client code.
 */

/** Workflow type of the reconciliation child (must equal the exported workflow function's name). */
export const RECONCILE_WORKFLOW_TYPE = 'reconcileToolCall';

/** Activity types of the package's own activities (tool activities are named after their tool). */
export const PREPARE_CALL_ACTIVITY = 'ttc.prepareToolCall';
export const SETTLE_CALL_ACTIVITY = 'ttc.settleToolCall';
export const OPEN_RECONCILIATION_ACTIVITY = 'ttc.openReconciliation';
export const QUERY_OUTCOME_ACTIVITY = 'ttc.queryOutcome';
export const ESCALATE_ACTIVITY = 'ttc.escalateReconciliation';
export const STATE_PATCH_ACTIVITY = 'ttc.applyStatePatch';
/** The agent loop's model call (one model turn). */
export const MODEL_CALL_ACTIVITY = 'ttc.callModel';

/** Workflow type of the built-in agent loop (must equal the exported workflow function's name). */
export const AGENT_LOOP_WORKFLOW_TYPE = 'agentLoop';
/** The agent loop's conversation so far (model results only, never audits). */
export const AGENT_TRANSCRIPT_QUERY = 'ttc.agentTranscript';

/** Prefix reserved for the package's own activity types; no tool may be named with it. */
export const RESERVED_ACTIVITY_PREFIX = 'ttc.';

/** Approval decisions for a pending call: signal (required interface) and update (validated, immediate answer). */
export const APPROVAL_SIGNAL = 'ttc.approval';
export const APPROVAL_UPDATE = 'ttc.decideApproval';
export const PENDING_APPROVALS_QUERY = 'ttc.pendingApprovals';

/** Human resolution of an escalated reconciliation, and the reconciliation's state. */
export const RESOLVE_OUTCOME_SIGNAL = 'ttc.resolveOutcome';
export const RECONCILE_STATE_QUERY = 'ttc.reconcileState';

/**
 * Search attributes. They must be registered on the server before a workflow upserts them (else its workflow task
 * fails forever): the dev server is started with `--search-attribute Name=Type` for each entry of
 * {@link SEARCH_ATTRIBUTE_KEYS}.
 */
/** True while a workflow waits for at least one approval decision. */
export const APPROVAL_PENDING_SA = defineSearchAttributeKey('TtcApprovalPending', SearchAttributeType.BOOL);
/** State of a reconciliation child: `reconciling`, `redispatching`, `escalated`, `committed`, `not_committed`. */
export const RECONCILE_STATE_SA = defineSearchAttributeKey('TtcReconcileState', SearchAttributeType.KEYWORD);
/** The idempotency key a reconciliation child settles. */
export const IDEMPOTENCY_KEY_SA = defineSearchAttributeKey('TtcIdempotencyKey', SearchAttributeType.KEYWORD);

/** Every search attribute the package upserts, with its server type (as `temporal ... --search-attribute` spells it). */
export const SEARCH_ATTRIBUTE_KEYS = [
  { name: APPROVAL_PENDING_SA.name, cliType: 'Bool' },
  { name: RECONCILE_STATE_SA.name, cliType: 'Keyword' },
  { name: IDEMPOTENCY_KEY_SA.name, cliType: 'Keyword' },
] as const;
