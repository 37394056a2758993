-- 001: the tool-call store (SPEC §7 local replay, §8 write-back). Forward only: never edit once released.
--
-- JSON documents (audit records, model results, state values) are stored as RFC 8785 canonical JSON *text*, not
-- jsonb: the stored bytes are exactly the bytes the binding digests were taken over (so a reader can re-verify
-- them), and jsonb would reject "\u0000" and reorder keys. Timestamps are timestamptz.

-- Refuses changes to rows that form a history. Raised with a package-specific SQLSTATE so callers map it by code.
CREATE FUNCTION ttc_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'table % is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'TT001';
END;
$$;

-- One row per attempt of a tool call: the protected audit (never in Temporal history, never shown to a model).
CREATE TABLE ttc_audit (
  audit_id            text PRIMARY KEY,
  workflow_id         text NOT NULL,
  run_id              text,
  call_id             text NOT NULL,
  attempt             integer NOT NULL CHECK (attempt > 0),
  idempotency_key     text NOT NULL,
  tool                text NOT NULL,
  status              text NOT NULL,
  error_code          text,
  request_sha256      text NOT NULL CHECK (request_sha256 ~ '^[0-9a-f]{64}$'),
  result_sha256       text NOT NULL CHECK (result_sha256 ~ '^[0-9a-f]{64}$'),
  call_binding_sha256 text NOT NULL CHECK (call_binding_sha256 ~ '^[0-9a-f]{64}$'),
  audit_json          text NOT NULL,
  model_result_json   text NOT NULL,
  recorded_at         timestamptz NOT NULL
);
CREATE INDEX ttc_audit_call_idx ON ttc_audit (workflow_id, call_id, recorded_at);
CREATE INDEX ttc_audit_key_idx ON ttc_audit (idempotency_key);
-- Statement-level, so even a DELETE that matches no row is refused, and TRUNCATE (which skips row triggers) too.
CREATE TRIGGER ttc_audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- The idempotency ledger: one row per key. The primary key is what makes N racing claimers leave one row.
CREATE TABLE ttc_ledger (
  idempotency_key text PRIMARY KEY,
  request_sha256  text NOT NULL CHECK (request_sha256 ~ '^[0-9a-f]{64}$'),
  tool            text NOT NULL,
  workflow_id     text NOT NULL,
  call_id         text NOT NULL,
  status          text NOT NULL CHECK (status IN ('claimed', 'completed', 'unknown', 'released')),
  -- Canonical JSON of the last recorded model result (as delivered fresh) and the audit of that attempt.
  model_result_json text,
  audit_id        text REFERENCES ttc_audit (audit_id),
  claimed_at      timestamptz NOT NULL,
  completed_at    timestamptz,
  CHECK (status <> 'completed' OR (model_result_json IS NOT NULL AND audit_id IS NOT NULL AND completed_at IS NOT NULL)),
  CHECK (status <> 'unknown' OR audit_id IS NOT NULL)
);

-- Evidence items of model results. Evidence ids are content digests, so the same id may appear in several calls.
CREATE TABLE ttc_evidence (
  workflow_id text NOT NULL,
  call_id     text NOT NULL,
  evidence_id text NOT NULL,
  audit_id    text NOT NULL REFERENCES ttc_audit (audit_id),
  kind        text NOT NULL,
  locator     text NOT NULL,
  -- kind/locator/supports/quote/source are query copies (NUL shown as U+FFFD, since text cannot hold NUL);
  -- record_json is the exact evidence item plus its source, and is what readers return.
  supports    text[] NOT NULL CHECK (cardinality(supports) > 0),
  quote       text,
  observed_at timestamptz,
  source      text NOT NULL,
  record_json text NOT NULL,
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (workflow_id, call_id, evidence_id)
);
CREATE INDEX ttc_evidence_workflow_idx ON ttc_evidence (workflow_id, evidence_id);

-- Oversized raw results, content-addressed. Immutable: a digest names exactly one body.
CREATE TABLE ttc_artifacts (
  sha256       text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content_type text NOT NULL,
  bytes        bigint NOT NULL CHECK (bytes >= 0),
  body         bytea NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE TRIGGER ttc_artifacts_immutable BEFORE UPDATE ON ttc_artifacts FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- Every applied state patch (history, append-only). (workflow, key, version) is unique, so two writers can never
-- both produce the same version even if the optimistic check were bypassed.
CREATE TABLE ttc_state_patches (
  patch_id         text PRIMARY KEY,
  workflow_id      text NOT NULL,
  key              text NOT NULL,
  value_json       text NOT NULL,
  evidence_ids     text[] NOT NULL CHECK (cardinality(evidence_ids) > 0),
  source           text NOT NULL,
  observed_at      timestamptz,
  retrieved_at     timestamptz NOT NULL,
  expected_version integer NOT NULL CHECK (expected_version >= 0),
  version          integer NOT NULL CHECK (version = expected_version + 1),
  call_id          text NOT NULL,
  -- Digest of everything the writer sent: a retried patch id must carry exactly the same patch.
  patch_sha256     text NOT NULL CHECK (patch_sha256 ~ '^[0-9a-f]{64}$'),
  applied_at       timestamptz NOT NULL,
  CONSTRAINT ttc_state_patches_version_key UNIQUE (workflow_id, key, version)
);
CREATE TRIGGER ttc_state_patches_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_state_patches FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- The current version of each state key: a pointer to the patch that set it.
CREATE TABLE ttc_state (
  workflow_id text NOT NULL,
  key         text NOT NULL,
  version     integer NOT NULL CHECK (version > 0),
  patch_id    text NOT NULL REFERENCES ttc_state_patches (patch_id),
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (workflow_id, key)
);

-- Long-term memory and candidates (seed 000 §17). Refused proposals are not stored.
CREATE TABLE ttc_memory (
  memory_id       text PRIMARY KEY,
  subject_ref     text NOT NULL,
  workflow_id     text NOT NULL,
  fact            text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('user_explicit_statement', 'user_confirmed', 'confirmed_fact', 'model_inference', 'external_content')),
  evidence_ids    text[] NOT NULL,
  observed_at     timestamptz,
  confidence      text CHECK (confidence IN ('high', 'medium', 'low')),
  status          text NOT NULL CHECK (status IN ('accepted', 'candidate')),
  reason          text NOT NULL,
  confirmed_by    text,
  proposal_sha256 text NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  -- The parts of the write policy that do not depend on the domain policy, enforced by the database as well.
  CONSTRAINT ttc_memory_external_needs_confirmation CHECK (kind <> 'external_content' OR status = 'candidate' OR confirmed_by IS NOT NULL),
  CONSTRAINT ttc_memory_fact_needs_evidence CHECK (kind <> 'confirmed_fact' OR cardinality(evidence_ids) > 0)
);
CREATE INDEX ttc_memory_subject_idx ON ttc_memory (subject_ref, status, created_at);

-- Side effects whose outcome was unknown; a key gets a new round when a safe retry is unknown again.
CREATE TABLE ttc_reconciliations (
  idempotency_key     text NOT NULL,
  round               integer NOT NULL CHECK (round > 0),
  workflow_id         text NOT NULL,
  call_id             text NOT NULL,
  tool                text NOT NULL,
  audit_id            text,
  state               text NOT NULL CHECK (state IN ('open', 'escalated', 'settled')),
  opened_at           timestamptz NOT NULL,
  escalated_at        timestamptz,
  escalation_reason   text,
  settled_at          timestamptz,
  outcome             text CHECK (outcome IN ('committed', 'not_committed')),
  via                 text CHECK (via IN ('receipt', 'human')),
  receipt_external_id text,
  resolved_by         text,
  note                text,
  PRIMARY KEY (idempotency_key, round),
  CHECK ((state = 'settled') = (settled_at IS NOT NULL AND outcome IS NOT NULL AND via IS NOT NULL)),
  CHECK (via <> 'human' OR resolved_by IS NOT NULL)
);
CREATE INDEX ttc_reconciliations_unsettled_idx ON ttc_reconciliations (opened_at) WHERE state <> 'settled';

CREATE TABLE ttc_reconciliation_attempts (
  idempotency_key text NOT NULL,
  round           integer NOT NULL,
  attempt         integer NOT NULL CHECK (attempt > 0),
  finding         text NOT NULL CHECK (finding IN ('committed', 'not_committed', 'unknown')),
  detail          text,
  at              timestamptz NOT NULL,
  PRIMARY KEY (idempotency_key, round, attempt),
  FOREIGN KEY (idempotency_key, round) REFERENCES ttc_reconciliations (idempotency_key, round)
);
CREATE TRIGGER ttc_reconciliation_attempts_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_reconciliation_attempts FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();
