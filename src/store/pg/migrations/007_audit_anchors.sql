-- 007: sealed segments of the audit in a chain of anchors, and retention by whole months. Forward only: never edit
-- once released.
--
-- Sealing (the store's sealAuditTrail, `tool-contract seal`) reads the oldest transaction still running anywhere
-- (pg_snapshot_xmin of its snapshot). Every audit row stamped with an older transaction (migration 006: xact) is
-- final, committed or gone for good, so the rows with xact in [the previous seal's end, that horizon) can be sealed
-- without waiting for, or blocking, any writer: sealers only exclude each other (advisory lock 1953784581). The sealer
-- cuts that span into ranges of about 10,000 rows (a range never splits a transaction) and appends one anchor per
-- range and month: the SHA-256 leaf of each row (over its audit_sha256, transaction, seq, time, id and workflow), in
-- (xact, seq) order, their Merkle root, and the digest of the previous anchor. An anchor is the proof; the rows it
-- seals are found again by (month, xact range).
CREATE TABLE ttc_audit_anchors (
  anchor_no          bigint PRIMARY KEY CHECK (anchor_no > 0),
  -- The first day of the month (UTC) whose rows it seals.
  period             date NOT NULL CHECK (extract(day FROM period) = 1),
  xact_from          bigint NOT NULL CHECK (xact_from >= 0),
  xact_to            bigint NOT NULL CHECK (xact_to > xact_from),
  row_count          integer NOT NULL CHECK (row_count > 0),
  -- The 32-byte leaf hashes in order: what lets verify name the row that changed, not only the segment.
  leaves             bytea NOT NULL CHECK (octet_length(leaves) = 32 * row_count),
  merkle_root        text NOT NULL CHECK (merkle_root ~ '^[0-9a-f]{64}$'),
  prev_anchor_sha256 text NOT NULL CHECK (prev_anchor_sha256 ~ '^[0-9a-f]{64}$'),
  anchor_sha256      text NOT NULL UNIQUE CHECK (anchor_sha256 ~ '^[0-9a-f]{64}$'),
  sealed_at          timestamptz NOT NULL,
  sealed_by          text NOT NULL,
  -- Optional Ed25519 signature of anchor_sha256, by a key the database does not hold.
  key_id             text,
  signature          text,
  CHECK ((key_id IS NULL) = (signature IS NULL))
);
-- Verify finds the anchor of a row by its month and transaction.
CREATE INDEX ttc_audit_anchors_range_idx ON ttc_audit_anchors (period, xact_from);
CREATE TRIGGER ttc_audit_anchors_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit_anchors FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- One row per retention run that dropped months: what went, how much, and the digest of the anchors exported before
-- the cut (the anchors themselves stay: they hold no record, and the chain runs through them).
CREATE TABLE ttc_audit_retirements (
  retired_before        date PRIMARY KEY CHECK (extract(day FROM retired_before) = 1),
  retired_at            timestamptz NOT NULL,
  retired_by            text NOT NULL,
  periods               date[] NOT NULL CHECK (cardinality(periods) > 0),
  anchors               bigint NOT NULL,
  last_anchor_no        bigint,
  audit_rows            bigint NOT NULL,
  evidence_rows         bigint NOT NULL,
  artifact_rows         bigint NOT NULL,
  ledger_rows           bigint NOT NULL,
  label_rows            bigint NOT NULL,
  anchors_export_sha256 text NOT NULL CHECK (anchors_export_sha256 ~ '^[0-9a-f]{64}$')
);
CREATE TRIGGER ttc_audit_retirements_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit_retirements FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- Labels of a retired attempt go with it (they judge a record that no longer exists).
DROP TRIGGER ttc_outcome_labels_append_only ON ttc_outcome_labels;
CREATE TRIGGER ttc_outcome_labels_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_outcome_labels
  FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change_except_retention();

-- A retired month is never provisioned again: a record dated in it is refused (TT002), never written where
-- retention cannot see it.
DO $do$ BEGIN EXECUTE replace($fn$
CREATE OR REPLACE FUNCTION @schema@.ttc_ensure_partitions(at timestamptz) RETURNS void
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
  IF EXISTS (SELECT 1 FROM @schema@.ttc_audit_retirements WHERE retired_before > (first_month AT TIME ZONE 'UTC')::date) THEN
    RAISE EXCEPTION 'the month of % was retired: nothing may be recorded in it', at USING ERRCODE = 'TT002';
  END IF;
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

-- Retires every month before `before` (the first day of a month, not after the current one): detaches and drops its
-- partitions of the audit, the query copies, evidence and artifacts, removes the ledger rows and labels of its
-- attempts, and records the run. Refused (TT003) while one of those rows is not sealed yet (seal first: the chain must
-- cover what goes), or while a side effect recorded in those months is still unsettled (its ledger row is claimed or
-- unknown, or its reconciliation open). `anchors_export_sha256` is the digest of the anchors the caller exported
-- first (`tool-contract retention` writes the file). Nothing to retire: no row, nothing recorded. Runs as the owner
-- (SECURITY DEFINER); nobody may call it until granted: GRANT EXECUTE ON FUNCTION ttc_retire_before(date, text).
-- Dropping a partition takes an exclusive lock on its table for a moment; lock_timeout bounds the wait for readers.
DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_retire_before(before date, anchors_export_sha256 text) RETURNS SETOF @schema@.ttc_audit_retirements
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = @schema@, pg_temp SET lock_timeout = '30s' AS $body$
DECLARE
  months date[];
  month date;
  sealed_to bigint;
  history text;
  part text;
  cut timestamptz := (before::timestamp AT TIME ZONE 'UTC');
  retired @schema@.ttc_audit_retirements;
BEGIN
  IF before IS NULL OR before <> date_trunc('month', before)::date OR before > date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN
    RAISE EXCEPTION 'ttc_retire_before needs the first day of a month not after the current one, got %', before USING ERRCODE = '22023';
  END IF;
  IF anchors_export_sha256 IS NULL OR anchors_export_sha256 !~ '^[0-9a-f]{64}$' THEN
    RAISE EXCEPTION 'ttc_retire_before needs the SHA-256 of the anchors exported before the cut' USING ERRCODE = '22023';
  END IF;
  PERFORM pg_advisory_xact_lock(1953784580, 0);
  PERFORM pg_advisory_xact_lock(1953784581, 0);
  SELECT array_agg(m ORDER BY m) INTO months
    FROM (SELECT to_date(right(c.relname, 8), '"y"YYYY"m"MM') AS m
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = '@schema@.ttc_audit'::regclass) AS p
   WHERE m < before;
  IF months IS NULL THEN
    RETURN;
  END IF;
  SELECT max(a.xact_to) INTO sealed_to FROM @schema@.ttc_audit_anchors a;
  IF EXISTS (SELECT 1 FROM @schema@.ttc_audit WHERE recorded_at < cut AND (sealed_to IS NULL OR xact >= sealed_to)) THEN
    RAISE EXCEPTION 'audit rows before % are not sealed yet: seal first', before USING ERRCODE = 'TT003';
  END IF;
  IF EXISTS (SELECT 1 FROM @schema@.ttc_ledger l JOIN @schema@.ttc_audit a ON a.audit_id IN (l.audit_id, l.late_commit_audit_id)
              WHERE a.recorded_at < cut AND l.status IN ('claimed', 'unknown'))
     OR EXISTS (SELECT 1 FROM @schema@.ttc_reconciliations r JOIN @schema@.ttc_audit a ON a.audit_id = r.audit_id
                 WHERE a.recorded_at < cut AND r.state <> 'settled') THEN
    RAISE EXCEPTION 'a side effect recorded before % is not settled yet', before USING ERRCODE = 'TT003';
  END IF;
  retired.retired_before := before;
  retired.retired_at := now();
  retired.retired_by := session_user;
  retired.periods := months;
  retired.anchors_export_sha256 := anchors_export_sha256;
  SELECT count(*), max(anchor_no) INTO retired.anchors, retired.last_anchor_no FROM @schema@.ttc_audit_anchors WHERE period < before;
  SELECT count(*) INTO retired.audit_rows FROM @schema@.ttc_audit WHERE recorded_at < cut;
  SELECT count(*) INTO retired.evidence_rows FROM @schema@.ttc_evidence WHERE recorded_at < cut;
  SELECT count(*) INTO retired.artifact_rows FROM @schema@.ttc_artifacts WHERE created_at < cut;
  PERFORM set_config('ttc.retention_purge', 'on', true);
  DELETE FROM @schema@.ttc_ledger l USING @schema@.ttc_audit a WHERE a.audit_id = l.audit_id AND a.recorded_at < cut;
  GET DIAGNOSTICS retired.ledger_rows = ROW_COUNT;
  DELETE FROM @schema@.ttc_outcome_labels WHERE audit_id IN (SELECT audit_id FROM @schema@.ttc_audit WHERE recorded_at < cut);
  GET DIAGNOSTICS retired.label_rows = ROW_COUNT;
  PERFORM set_config('ttc.retention_purge', 'off', true);
  FOREACH month IN ARRAY months LOOP
    -- The tables that reference the audit go first.
    FOREACH history IN ARRAY ARRAY['ttc_audit_facts', 'ttc_audit_layers', 'ttc_evidence', 'ttc_audit', 'ttc_artifacts'] LOOP
      part := format('%s_y%s', history, to_char(month, 'YYYY"m"MM'));
      CONTINUE WHEN to_regclass(format('@schema@.%I', part)) IS NULL;
      EXECUTE format('ALTER TABLE @schema@.%I DETACH PARTITION @schema@.%I', history, part);
      EXECUTE format('DROP TABLE @schema@.%I', part);
    END LOOP;
  END LOOP;
  INSERT INTO @schema@.ttc_audit_retirements SELECT retired.*;
  RETURN NEXT retired;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;
REVOKE EXECUTE ON FUNCTION ttc_retire_before(date, text) FROM PUBLIC;

-- The application role seals (SELECT, INSERT on the anchors) and verifies (SELECT on what tells a removal by
-- retention from a deletion: the retirements and the purge log of migration 002).
CREATE OR REPLACE FUNCTION ttc_grant_application_role(app_role name) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ttc_grant_application_role_base(app_role);
  EXECUTE format('REVOKE ALL ON SEQUENCE %I.ttc_audit_seq FROM %I', current_schema(), app_role);
  EXECUTE format('GRANT USAGE ON SEQUENCE %I.ttc_audit_seq TO %I', current_schema(), app_role);
  EXECUTE format('GRANT EXECUTE ON FUNCTION %I.ttc_ensure_partitions(timestamptz) TO %I', current_schema(), app_role);
  EXECUTE format('GRANT SELECT, INSERT ON TABLE %I.ttc_audit_anchors TO %I', current_schema(), app_role);
  EXECUTE format('GRANT SELECT ON TABLE %I.ttc_audit_retirements, %I.ttc_retention_log TO %I', current_schema(), current_schema(), app_role);
END;
$$;
