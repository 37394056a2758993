/**
 * Audit attempt numbers by the kind of execution, so audit ids (derived from operation, call and attempt) never
 * collide: Temporal attempts of the dispatch use 1–99, the one safe re-dispatch 101–199, receipt reconciliation
 * 201–299, a result settled without running (refused approval, "not committed") 300, a human resolution 400 plus
 * the round it settles minus one.
 */
export const AUDIT_ATTEMPT_BASE = Object.freeze({
  dispatch: 0,
  redispatch: 100,
  reconcile: 200,
  settled: 300,
  human: 400,
});
