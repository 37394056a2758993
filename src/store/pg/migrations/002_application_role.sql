-- 002: an audit the application cannot rewrite. Forward only: never edit once released.
--
-- Two roles. The role that runs migrations owns every object; the application connects as another role, which
-- ttc_grant_application_role grants exactly what the store's statements need. Only an owner may ALTER a table
-- (DISABLE TRIGGER, OWNER TO, DROP), so for the application the append-only triggers below are final. An owner or a
-- superuser can still change anything: audit_sha256, also kept in Temporal history, is what exposes that.

-- 1. audit_sha256: SHA-256 of the bytes of audit_json (the canonical record), checked on every read. Existing rows
--    are backfilled; the append-only trigger is paused for that one statement, inside this migration's transaction.
ALTER TABLE ttc_audit ADD COLUMN audit_sha256 text;
ALTER TABLE ttc_audit DISABLE TRIGGER ttc_audit_append_only;
UPDATE ttc_audit SET audit_sha256 = encode(sha256(convert_to(audit_json, 'UTF8')), 'hex');
ALTER TABLE ttc_audit ENABLE TRIGGER ttc_audit_append_only;
ALTER TABLE ttc_audit
  ALTER COLUMN audit_sha256 SET NOT NULL,
  ADD CONSTRAINT ttc_audit_sha256_hex CHECK (audit_sha256 ~ '^[0-9a-f]{64}$');

-- 2. Evidence and artifacts are immutable; the only way out is retention (ttc_purge_before). The setting is a guard
--    against an owner's slip, not a boundary: the application has no DELETE privilege to combine it with.
CREATE FUNCTION ttc_refuse_change_except_retention() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('ttc.retention_purge', true) = 'on' THEN
    RETURN NULL;
  END IF;
  RAISE EXCEPTION 'table % is immutable: % refused (retention runs through ttc_purge_before)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'TT001';
END;
$$;

CREATE TRIGGER ttc_evidence_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_evidence
  FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change_except_retention();
DROP TRIGGER ttc_artifacts_immutable ON ttc_artifacts;
CREATE TRIGGER ttc_artifacts_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_artifacts
  FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change_except_retention();

-- What retention removed, one row per item: itself append-only.
CREATE TABLE ttc_retention_log (
  purged_at     timestamptz NOT NULL,
  purged_before timestamptz NOT NULL,
  purged_by     text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('evidence', 'artifact')),
  -- evidence: {workflow id, call id, evidence id, audit id}; artifact: {sha256}.
  item          text[] NOT NULL CHECK (cardinality(item) > 0),
  created_at    timestamptz NOT NULL
);
CREATE TRIGGER ttc_retention_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_retention_log
  FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- Deletes evidence and artifacts recorded before `cutoff` (which must be in the past) and logs each one. Runs with
-- the owner's rights (SECURITY DEFINER) and a search_path fixed at creation; nobody may call it until granted:
-- GRANT EXECUTE ON FUNCTION ttc_purge_before(timestamptz) TO <retention role>.
-- (The setting is switched on and off in the body: a SET clause on a custom setting needs a superuser to create.)
CREATE FUNCTION ttc_purge_before(cutoff timestamptz) RETURNS TABLE (evidence_rows bigint, artifact_rows bigint)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  IF cutoff IS NULL OR cutoff > now() THEN
    RAISE EXCEPTION 'ttc_purge_before needs a cutoff in the past, got %', cutoff USING ERRCODE = '22023';
  END IF;
  PERFORM set_config('ttc.retention_purge', 'on', true);
  WITH gone AS (
    DELETE FROM ttc_evidence e WHERE e.recorded_at < cutoff RETURNING e.workflow_id, e.call_id, e.evidence_id, e.audit_id, e.recorded_at
  )
  INSERT INTO ttc_retention_log (purged_at, purged_before, purged_by, kind, item, created_at)
  SELECT now(), cutoff, session_user, 'evidence', ARRAY[g.workflow_id, g.call_id, g.evidence_id, g.audit_id], g.recorded_at FROM gone g;
  GET DIAGNOSTICS evidence_rows = ROW_COUNT;
  WITH gone AS (
    DELETE FROM ttc_artifacts a WHERE a.created_at < cutoff RETURNING a.sha256, a.created_at
  )
  INSERT INTO ttc_retention_log (purged_at, purged_before, purged_by, kind, item, created_at)
  SELECT now(), cutoff, session_user, 'artifact', ARRAY[g.sha256], g.created_at FROM gone g;
  GET DIAGNOSTICS artifact_rows = ROW_COUNT;
  PERFORM set_config('ttc.retention_purge', 'off', true);
  RETURN NEXT;
END;
$$;
REVOKE EXECUTE ON FUNCTION ttc_purge_before(timestamptz) FROM PUBLIC;

-- 3. The application role's privileges, in one place. migrate() calls this (as the owner) on every run, so the grants
--    always match this list: everything on the package's tables is revoked from the role first. Append-only tables:
--    SELECT, INSERT. Tables whose rows the store moves through states: SELECT, INSERT, UPDATE. No DELETE, TRUNCATE,
--    REFERENCES or TRIGGER anywhere, and no ownership: the role cannot alter, disable or drop anything.
CREATE FUNCTION ttc_grant_application_role(app_role name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  tbl name;
BEGIN
  FOR tbl IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'ttc\_%' LOOP
    EXECUTE format('REVOKE ALL ON TABLE %I.%I FROM %I', current_schema(), tbl, app_role);
  END LOOP;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), app_role);
  FOREACH tbl IN ARRAY ARRAY['ttc_audit', 'ttc_evidence', 'ttc_artifacts', 'ttc_state_patches', 'ttc_reconciliation_attempts'] LOOP
    EXECUTE format('GRANT SELECT, INSERT ON TABLE %I.%I TO %I', current_schema(), tbl, app_role);
  END LOOP;
  FOREACH tbl IN ARRAY ARRAY['ttc_ledger', 'ttc_reconciliations', 'ttc_state', 'ttc_memory'] LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON TABLE %I.%I TO %I', current_schema(), tbl, app_role);
  END LOOP;
END;
$$;
REVOKE EXECUTE ON FUNCTION ttc_grant_application_role(name) FROM PUBLIC;
