import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The search attributes this package upserts, and the values it writes into them. They must be registered on the
 * server before a workflow upserts them (else its workflow task fails forever): the dev server is started with
 * `--search-attribute Name=Type` for each entry of {@link SEARCH_ATTRIBUTE_KEYS}.
 */

/** True while a workflow waits for at least one approval decision. */
export const APPROVAL_PENDING_SA = defineSearchAttributeKey('TtcApprovalPending', SearchAttributeType.BOOL);
/** The visibility query of the running workflows that wait for at least one approval decision. */
export const APPROVAL_PENDING_VISIBILITY_QUERY = `${APPROVAL_PENDING_SA.name} = true AND ExecutionStatus = "Running"`;
/** State of a reconciliation child: one of {@link RECONCILE_STATES}. */
export const RECONCILE_STATE_SA = defineSearchAttributeKey('TtcReconcileState', SearchAttributeType.KEYWORD);
/** The idempotency key a reconciliation child settles. */
export const IDEMPOTENCY_KEY_SA = defineSearchAttributeKey('TtcIdempotencyKey', SearchAttributeType.KEYWORD);

/** Every search attribute the package upserts, with its server type (as `temporal ... --search-attribute` spells it). */
export const SEARCH_ATTRIBUTE_KEYS = [
  { name: APPROVAL_PENDING_SA.name, cliType: 'Bool' },
  { name: RECONCILE_STATE_SA.name, cliType: 'Keyword' },
  { name: IDEMPOTENCY_KEY_SA.name, cliType: 'Keyword' },
] as const;

/** Values of {@link RECONCILE_STATE_SA}; operators list escalations with `TtcReconcileState = "escalated"`. */
export const RECONCILE_STATES = ['reconciling', 'redispatching', 'escalated', 'committed', 'not_committed'] as const;
/** Where a reconciliation stands (query, search attribute, current details). */
export type ReconcileState = (typeof RECONCILE_STATES)[number];
