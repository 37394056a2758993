-- Dispatch leases and late commits (a frozen worker must never commit behind a "not committed" answer). Forward
-- only: never edit once released.
--
-- A write's claim is a lease: a random token and the attempt's deadline on the database's clock (so a worker's
-- clock cannot stretch it). The attempt passes a fence immediately before its request leaves: one UPDATE that
-- checks the lease and sets dispatched_at. Reconciliation revokes the lease of the dispatch it reconciles before it
-- asks the provider, and adds that dispatcher to fenced_holders, so it can never claim the key again either. Both
-- take the ledger row's lock, so a fence and a revocation are ordered: the revocation sees whether the fence passed.
ALTER TABLE ttc_ledger
  ADD COLUMN lease_holder     text,
  ADD COLUMN lease_token      text,
  ADD COLUMN lease_expires_at timestamptz,
  ADD COLUMN dispatched_at    timestamptz,
  ADD COLUMN lease_revoked_at timestamptz,
  ADD COLUMN fenced_holders   text[] NOT NULL DEFAULT '{}',
  -- The audit of a commit recorded after the call was settled "not committed". While set, the row is `unknown`
  -- (the key's reconciliation is escalated to a human) and only a human's settlement moves it.
  ADD COLUMN late_commit_audit_id text REFERENCES ttc_audit (audit_id),
  ADD CONSTRAINT ttc_ledger_lease_complete CHECK ((lease_token IS NULL) = (lease_expires_at IS NULL) AND (lease_token IS NULL) = (lease_holder IS NULL)),
  ADD CONSTRAINT ttc_ledger_late_commit_disputed CHECK (late_commit_audit_id IS NULL OR status = 'unknown');

-- What opening a round established about the dispatch it fenced: whether that dispatch had passed its fence (its
-- request may be in flight) and, if so, when it can no longer be (its deadline plus the worker's timeout buffer).
-- NULL holder: the round was opened without a fence (before this migration, or by a late commit).
ALTER TABLE ttc_reconciliations
  ADD COLUMN fenced_holder     text,
  ADD COLUMN lease_dispatched  boolean,
  ADD COLUMN dispatch_quiet_at timestamptz,
  ADD CONSTRAINT ttc_reconciliations_fence_complete CHECK ((fenced_holder IS NULL) = (lease_dispatched IS NULL) AND (dispatch_quiet_at IS NULL OR lease_dispatched));
