-- 006: history partitioned by month, audit rows stamped for sealing, and SECURITY DEFINER functions that no session
-- can steer. Forward only: never edit once released.
--
-- Why partitions: retention (migration 007) drops whole months of the audit, its query copies, evidence and
-- artifacts — DETACH and DROP, no row-by-row DELETE and no bloat — and a month dropped is gone from every table at once.
-- What partitioning costs, and how it is paid:
-- * A unique key of a partitioned table must contain its partition key, so "one row per audit id" (per evidence item,
--   per artifact body and month) is no longer a unique index. A BEFORE INSERT trigger keeps it: it takes a
--   transaction advisory lock on the key (for evidence: on its call, so a record takes one lock however many items it
--   has), then skips the row when one exists — what ON CONFLICT DO NOTHING did (the store's statements lost those
--   clauses; RETURNING is empty for a skipped row, as before). Racing writers of one key wait for each other; writers
--   of different keys never do. A bulk load of many rows in one transaction (a restore, a test's generated table)
--   would hold one lock per row: the owner disables the *_once triggers for it (ALTER TABLE ... DISABLE TRIGGER
--   reaches every partition), as this migration does while it copies the rows recorded so far.
-- * A foreign key to a partitioned table must name the partition key too: evidence and the query copies reference
--   (audit_id, recorded_at), written in the statement that writes the audit row, with its time. The ledger and the
--   outcome labels lose their foreign keys to the audit: retention removes the ledger rows and labels of the months it
--   drops (migration 007), and the store writes both in the audit's own transaction.
-- * A row needs its month's partition: ttc_ensure_partitions(at) creates the month of `at` and the next one. The
--   store calls it once per month and process before writing (the application role may execute it; it runs as the
--   owner). It creates each partition on its own and ATTACHes it, which waits for no reader of the table.
--
-- Function bodies name every table as "<schema>".<table>, and every SECURITY DEFINER function pins
-- search_path = "<schema>", pg_temp: a session's temporary tables (searched first when pg_temp is not listed) must
-- never stand in for the store's. The files stay schema-agnostic: each such function is created from its text with
-- @schema@ replaced by the quoted current schema.

-- Sealing (migration 007) orders the rows by seq and groups them by the transaction that wrote them (xact): a row
-- belongs to a sealed segment once every transaction older than the sealer's snapshot has ended. Both are stamped by
-- the trigger below, never taken from the writer.
CREATE SEQUENCE ttc_audit_seq;

-- Advisory lock classes (the two-key form), fixed constants: 1953784577 audit ids, 1953784578 evidence of a call,
-- 1953784579 artifact bodies, 1953784580 partition changes.
DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_audit_once() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  PERFORM pg_advisory_xact_lock(1953784577, hashtext(NEW.audit_id));
  IF EXISTS (SELECT 1 FROM @schema@.ttc_audit WHERE audit_id = NEW.audit_id) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;

-- Fires after ttc_audit_once (triggers fire in name order), for the rows that are inserted.
DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_audit_stamp() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  NEW.seq := nextval('@schema@.ttc_audit_seq');
  NEW.xact := pg_current_xact_id()::text::bigint;
  RETURN NEW;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;

DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_evidence_once() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  PERFORM pg_advisory_xact_lock(1953784578, hashtext(NEW.workflow_id || '/' || NEW.call_id));
  IF EXISTS (SELECT 1 FROM @schema@.ttc_evidence WHERE workflow_id = NEW.workflow_id AND call_id = NEW.call_id AND evidence_id = NEW.evidence_id) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;

-- An artifact body is stored once per month: the audit that names it lives in the same month, so dropping a month
-- never takes a body a younger audit still names.
DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_artifact_once_a_month() RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
  month timestamptz := date_trunc('month', NEW.created_at, 'UTC');
BEGIN
  PERFORM pg_advisory_xact_lock(1953784579, hashtext(NEW.sha256));
  IF EXISTS (SELECT 1 FROM @schema@.ttc_artifacts WHERE sha256 = NEW.sha256 AND created_at >= month AND created_at < month + interval '1 month') THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;

-- The unpartitioned tables step aside (with their index names) until their rows are copied.
ALTER TABLE ttc_audit RENAME TO ttc_audit_before_006;
ALTER INDEX ttc_audit_pkey RENAME TO ttc_audit_before_006_pkey;
ALTER INDEX ttc_audit_call_idx RENAME TO ttc_audit_before_006_call_idx;
ALTER INDEX ttc_audit_key_idx RENAME TO ttc_audit_before_006_key_idx;
ALTER TABLE ttc_audit_facts RENAME TO ttc_audit_facts_before_006;
ALTER INDEX ttc_audit_facts_pkey RENAME TO ttc_audit_facts_before_006_pkey;
ALTER INDEX ttc_audit_facts_time_idx RENAME TO ttc_audit_facts_before_006_time_idx;
ALTER INDEX ttc_audit_facts_tool_idx RENAME TO ttc_audit_facts_before_006_tool_idx;
ALTER TABLE ttc_audit_layers RENAME TO ttc_audit_layers_before_006;
ALTER INDEX ttc_audit_layers_pkey RENAME TO ttc_audit_layers_before_006_pkey;
ALTER INDEX ttc_audit_layers_time_idx RENAME TO ttc_audit_layers_before_006_time_idx;
ALTER INDEX ttc_audit_layers_tool_idx RENAME TO ttc_audit_layers_before_006_tool_idx;
ALTER TABLE ttc_evidence RENAME TO ttc_evidence_before_006;
ALTER INDEX ttc_evidence_pkey RENAME TO ttc_evidence_before_006_pkey;
ALTER INDEX ttc_evidence_workflow_idx RENAME TO ttc_evidence_before_006_workflow_idx;
ALTER TABLE ttc_artifacts RENAME TO ttc_artifacts_before_006;
ALTER INDEX ttc_artifacts_pkey RENAME TO ttc_artifacts_before_006_pkey;

-- The audit (columns of 001 and 002), plus: principal_ref, a query copy of the record's (erasure by principal, 008),
-- checked against the record on every read like the other indexed columns; seq and xact, stamped on insert.
CREATE TABLE ttc_audit (
  audit_id            text NOT NULL,
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
  recorded_at         timestamptz NOT NULL,
  audit_sha256        text NOT NULL CONSTRAINT ttc_audit_sha256_hex CHECK (audit_sha256 ~ '^[0-9a-f]{64}$'),
  principal_ref       text NOT NULL CHECK (principal_ref ~ '^[0-9a-f]{64}$'),
  seq                 bigint NOT NULL,
  xact                bigint NOT NULL,
  CONSTRAINT ttc_audit_pkey PRIMARY KEY (audit_id, recorded_at)
) PARTITION BY RANGE (recorded_at);
CREATE INDEX ttc_audit_call_idx ON ttc_audit (workflow_id, call_id, recorded_at);
CREATE INDEX ttc_audit_key_idx ON ttc_audit (idempotency_key);
-- Sealing, verify and export read a transaction range in seq order.
CREATE INDEX ttc_audit_seal_idx ON ttc_audit (xact, seq);
CREATE INDEX ttc_audit_principal_idx ON ttc_audit (principal_ref);
CREATE TRIGGER ttc_audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();
CREATE TRIGGER ttc_audit_stamp BEFORE INSERT ON ttc_audit FOR EACH ROW EXECUTE FUNCTION ttc_audit_stamp();

CREATE TABLE ttc_audit_facts (
  audit_id    text NOT NULL,
  tool        text NOT NULL,
  error_code  text,
  accepted    boolean NOT NULL,
  warnings    text[] NOT NULL,
  recorded_at timestamptz NOT NULL,
  CONSTRAINT ttc_audit_facts_pkey PRIMARY KEY (audit_id, recorded_at),
  CONSTRAINT ttc_audit_facts_audit_fkey FOREIGN KEY (audit_id, recorded_at) REFERENCES ttc_audit (audit_id, recorded_at)
) PARTITION BY RANGE (recorded_at);
CREATE INDEX ttc_audit_facts_time_idx ON ttc_audit_facts (recorded_at) INCLUDE (tool, accepted, error_code, warnings);
CREATE INDEX ttc_audit_facts_tool_idx ON ttc_audit_facts (tool, recorded_at) INCLUDE (accepted, error_code, warnings);
CREATE TRIGGER ttc_audit_facts_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit_facts FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

CREATE TABLE ttc_audit_layers (
  audit_id     text NOT NULL,
  tool         text NOT NULL,
  layer        text NOT NULL,
  outcome      text NOT NULL CHECK (outcome IN ('passed', 'warned', 'failed')),
  rule_version text NOT NULL,
  accepted     boolean NOT NULL,
  recorded_at  timestamptz NOT NULL,
  CONSTRAINT ttc_audit_layers_pkey PRIMARY KEY (audit_id, layer, recorded_at),
  CONSTRAINT ttc_audit_layers_audit_fkey FOREIGN KEY (audit_id, recorded_at) REFERENCES ttc_audit (audit_id, recorded_at)
) PARTITION BY RANGE (recorded_at);
CREATE INDEX ttc_audit_layers_time_idx ON ttc_audit_layers (recorded_at) INCLUDE (tool, layer, rule_version, outcome, accepted);
CREATE INDEX ttc_audit_layers_tool_idx ON ttc_audit_layers (tool, recorded_at) INCLUDE (layer, rule_version, outcome, accepted);
CREATE TRIGGER ttc_audit_layers_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit_layers FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

CREATE TABLE ttc_evidence (
  workflow_id text NOT NULL,
  call_id     text NOT NULL,
  evidence_id text NOT NULL,
  audit_id    text NOT NULL,
  kind        text NOT NULL,
  locator     text NOT NULL,
  supports    text[] NOT NULL CHECK (cardinality(supports) > 0),
  quote       text,
  observed_at timestamptz,
  source      text NOT NULL,
  record_json text NOT NULL,
  recorded_at timestamptz NOT NULL,
  CONSTRAINT ttc_evidence_pkey PRIMARY KEY (workflow_id, call_id, evidence_id, recorded_at),
  CONSTRAINT ttc_evidence_audit_fkey FOREIGN KEY (audit_id, recorded_at) REFERENCES ttc_audit (audit_id, recorded_at)
) PARTITION BY RANGE (recorded_at);
CREATE INDEX ttc_evidence_workflow_idx ON ttc_evidence (workflow_id, evidence_id);
CREATE TRIGGER ttc_evidence_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_evidence FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change_except_retention();

CREATE TABLE ttc_artifacts (
  sha256       text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content_type text NOT NULL,
  bytes        bigint NOT NULL CHECK (bytes >= 0),
  body         bytea NOT NULL,
  created_at   timestamptz NOT NULL,
  CONSTRAINT ttc_artifacts_pkey PRIMARY KEY (sha256, created_at)
) PARTITION BY RANGE (created_at);
CREATE TRIGGER ttc_artifacts_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_artifacts FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change_except_retention();

-- Creates the partitions of the month of `at` and of the next month where missing (at most a year ahead: a clock that
-- far off is a mistake, not a month to prepare). Each partition is created alone and ATTACHed — which takes no lock a
-- reader holds (CREATE TABLE ... PARTITION OF would wait for every reader of the table) — and gets the append-only
-- trigger of its table, since a statement on a partition does not fire its parent's statement triggers.
DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_ensure_partitions(at timestamptz) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = @schema@, pg_temp AS $body$
DECLARE
  first_month timestamptz := date_trunc('month', at, 'UTC');
  month timestamptz;
  history record;
  part text;
BEGIN
  IF at IS NULL OR at > now() + interval '1 year' THEN
    RAISE EXCEPTION 'ttc_ensure_partitions needs a time at most a year ahead, got %', at USING ERRCODE = '22023';
  END IF;
  PERFORM pg_advisory_xact_lock(1953784580, 0);
  FOREACH month IN ARRAY ARRAY[first_month, first_month + interval '1 month'] LOOP
    FOR history IN SELECT * FROM (VALUES ('ttc_audit', 'ttc_refuse_change'), ('ttc_audit_facts', 'ttc_refuse_change'), ('ttc_audit_layers', 'ttc_refuse_change'),
                                         ('ttc_evidence', 'ttc_refuse_change_except_retention'), ('ttc_artifacts', 'ttc_refuse_change_except_retention')) AS h (tbl, guard) LOOP
      part := format('%s_y%sm%s', history.tbl, to_char(month AT TIME ZONE 'UTC', 'YYYY'), to_char(month AT TIME ZONE 'UTC', 'MM'));
      CONTINUE WHEN to_regclass(format('@schema@.%I', part)) IS NOT NULL;
      EXECUTE format('CREATE TABLE @schema@.%I (LIKE @schema@.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, history.tbl);
      EXECUTE format('ALTER TABLE @schema@.%I ATTACH PARTITION @schema@.%I FOR VALUES FROM (%L) TO (%L)', history.tbl, part, month, month + interval '1 month');
      EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE OR TRUNCATE ON @schema@.%I FOR EACH STATEMENT EXECUTE FUNCTION @schema@.%I()', part || '_append_only', part, history.guard);
    END LOOP;
  END LOOP;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;
REVOKE EXECUTE ON FUNCTION ttc_ensure_partitions(timestamptz) FROM PUBLIC;

-- The rows recorded so far move into the partitions (this month and the next exist from now on), before the *_once
-- triggers exist (the rows are unique already; one advisory lock per row would overflow the lock table). Evidence and
-- the query copies take their audit's time (the same instant whenever the store wrote them together). The stamp
-- trigger stamps the audit rows in the order they were recorded, all with this migration's transaction.
SELECT ttc_ensure_partitions(month)
  FROM (SELECT recorded_at AS month FROM ttc_audit_before_006 UNION SELECT created_at FROM ttc_artifacts_before_006 UNION SELECT now()) AS months;

-- jsonb cannot hold NUL: "\u0000" (literal in this standard string) is read as U+FFFD, inside a string either way.
INSERT INTO ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256,
                       call_binding_sha256, audit_json, model_result_json, recorded_at, audit_sha256, principal_ref)
SELECT a.audit_id, a.workflow_id, a.run_id, a.call_id, a.attempt, a.idempotency_key, a.tool, a.status, a.error_code, a.request_sha256, a.result_sha256,
       a.call_binding_sha256, a.audit_json, a.model_result_json, a.recorded_at, a.audit_sha256,
       -- A record that is not JSON, or names no principal, gets a reference no one has: verify reports the row.
       coalesce(CASE WHEN a.audit_json IS JSON OBJECT THEN (SELECT p.ref FROM (SELECT replace(a.audit_json, '\u0000', '\ufffd')::jsonb ->> 'principal_ref' AS ref) p
                                                           WHERE p.ref ~ '^[0-9a-f]{64}$') END, repeat('0', 64))
  FROM ttc_audit_before_006 a
 ORDER BY a.recorded_at, a.audit_id;

INSERT INTO ttc_audit_facts (audit_id, tool, error_code, accepted, warnings, recorded_at)
SELECT f.audit_id, f.tool, f.error_code, f.accepted, f.warnings, a.recorded_at
  FROM ttc_audit_facts_before_006 f JOIN ttc_audit_before_006 a ON a.audit_id = f.audit_id;

INSERT INTO ttc_audit_layers (audit_id, tool, layer, outcome, rule_version, accepted, recorded_at)
SELECT l.audit_id, l.tool, l.layer, l.outcome, l.rule_version, l.accepted, a.recorded_at
  FROM ttc_audit_layers_before_006 l JOIN ttc_audit_before_006 a ON a.audit_id = l.audit_id;

INSERT INTO ttc_evidence (workflow_id, call_id, evidence_id, audit_id, kind, locator, supports, quote, observed_at, source, record_json, recorded_at)
SELECT e.workflow_id, e.call_id, e.evidence_id, e.audit_id, e.kind, e.locator, e.supports, e.quote, e.observed_at, e.source, e.record_json, a.recorded_at
  FROM ttc_evidence_before_006 e JOIN ttc_audit_before_006 a ON a.audit_id = e.audit_id;

INSERT INTO ttc_artifacts (sha256, content_type, bytes, body, created_at)
SELECT sha256, content_type, bytes, body, created_at FROM ttc_artifacts_before_006;

-- Dropping the old audit drops the foreign keys the ledger and the labels had on it.
DROP TABLE ttc_audit_facts_before_006, ttc_audit_layers_before_006, ttc_evidence_before_006, ttc_artifacts_before_006;
DROP TABLE ttc_audit_before_006 CASCADE;

CREATE TRIGGER ttc_audit_once BEFORE INSERT ON ttc_audit FOR EACH ROW EXECUTE FUNCTION ttc_audit_once();
CREATE TRIGGER ttc_evidence_once BEFORE INSERT ON ttc_evidence FOR EACH ROW EXECUTE FUNCTION ttc_evidence_once();
CREATE TRIGGER ttc_artifact_once_a_month BEFORE INSERT ON ttc_artifacts FOR EACH ROW EXECUTE FUNCTION ttc_artifact_once_a_month();

-- Retention by cutoff (migration 002), on the partitioned tables and with its names pinned: in a session that created
-- a temporary ttc_retention_log, the log went there while the rows were deleted (pg_temp is searched first unless
-- listed).
DO $do$ BEGIN EXECUTE replace($fn$
CREATE OR REPLACE FUNCTION @schema@.ttc_purge_before(cutoff timestamptz) RETURNS TABLE (evidence_rows bigint, artifact_rows bigint)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = @schema@, pg_temp AS $body$
BEGIN
  IF cutoff IS NULL OR cutoff > now() THEN
    RAISE EXCEPTION 'ttc_purge_before needs a cutoff in the past, got %', cutoff USING ERRCODE = '22023';
  END IF;
  PERFORM set_config('ttc.retention_purge', 'on', true);
  WITH gone AS (
    DELETE FROM @schema@.ttc_evidence e WHERE e.recorded_at < cutoff RETURNING e.workflow_id, e.call_id, e.evidence_id, e.audit_id, e.recorded_at
  )
  INSERT INTO @schema@.ttc_retention_log (purged_at, purged_before, purged_by, kind, item, created_at)
  SELECT now(), cutoff, session_user, 'evidence', ARRAY[g.workflow_id, g.call_id, g.evidence_id, g.audit_id], g.recorded_at FROM gone g;
  GET DIAGNOSTICS evidence_rows = ROW_COUNT;
  WITH gone AS (
    DELETE FROM @schema@.ttc_artifacts a WHERE a.created_at < cutoff RETURNING a.sha256, a.created_at
  )
  INSERT INTO @schema@.ttc_retention_log (purged_at, purged_before, purged_by, kind, item, created_at)
  SELECT now(), cutoff, session_user, 'artifact', ARRAY[g.sha256], g.created_at FROM gone g;
  GET DIAGNOSTICS artifact_rows = ROW_COUNT;
  PERFORM set_config('ttc.retention_purge', 'off', true);
  RETURN NEXT;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;

-- The application role's privileges (002, 004 and whatever came between) stay in ttc_grant_application_role_base;
-- ttc_grant_application_role grants those and then the audit lifecycle's: the sequence the stamping trigger draws
-- from (USAGE: nextval only) and the partition function. migrate() calls it on every run.
ALTER FUNCTION ttc_grant_application_role(name) RENAME TO ttc_grant_application_role_base;
CREATE FUNCTION ttc_grant_application_role(app_role name) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ttc_grant_application_role_base(app_role);
  EXECUTE format('REVOKE ALL ON SEQUENCE %I.ttc_audit_seq FROM %I', current_schema(), app_role);
  EXECUTE format('GRANT USAGE ON SEQUENCE %I.ttc_audit_seq TO %I', current_schema(), app_role);
  EXECUTE format('GRANT EXECUTE ON FUNCTION %I.ttc_ensure_partitions(timestamptz) TO %I', current_schema(), app_role);
END;
$$;
REVOKE EXECUTE ON FUNCTION ttc_grant_application_role(name) FROM PUBLIC;
