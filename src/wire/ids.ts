/**
 * Identifiers the package derives and stores (in history, in idempotency keys, in audits). Deterministic from
 * their inputs, so workflow code can compute them on replay and clients can compute them without asking.
 */

/** Prefix of the reconciliation child's workflow id. */
export const RECONCILE_WORKFLOW_ID_PREFIX = 'ttc-reconcile:';

/** The reconciliation child's workflow id: derived from the idempotency key, so one key has one reconciliation. */
export function reconcileWorkflowId(idempotencyKey: string): string {
  return `${RECONCILE_WORKFLOW_ID_PREFIX}${idempotencyKey}`;
}

/** The `sequence`-th call id of a workflow run that did not name its calls (`call-1`, `call-2`, …). */
export function workflowCallId(sequence: number): string {
  return `call-${sequence}`;
}

/** The `count`-th tool call of the agent loop, counted across continue-as-new (`agent-call-1`, …). */
export function agentCallId(count: number): string {
  return `agent-call-${count}`;
}

/**
 * The call id of a recovery attempt of `callId`: its one re-query (`<call>.requery`) or its `n`-th fallback tool
 * (`<call>.fallback-<n>`). Each attempt is a call of its own (its own key and audit), derived so replay finds it.
 */
export function recoveryCallId(
  callId: string,
  attempt: { readonly kind: 'requery' } | { readonly kind: 'fallback'; readonly n: number },
): string {
  return attempt.kind === 'requery' ? `${callId}.requery` : `${callId}.fallback-${attempt.n}`;
}
