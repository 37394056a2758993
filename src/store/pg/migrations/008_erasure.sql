-- 008: erasure of a person's or a workflow's stored data, with a tombstone. Forward only: never edit once released.
--
-- What is erased: the raw artifact bodies the scope's audits name (the full, unredacted results and recorded calls)
-- and the scope's memory rows. What stays: the audit rows themselves — redacted records, a keyed principal reference
-- and the digests the chain of anchors seals — so the audit still verifies after the erasure and says what was
-- erased, when, by whom and why (the tombstone, itself append-only). Retention (007) removes the audit rows when
-- their month goes.
CREATE TABLE ttc_erasures (
  erasure_id text PRIMARY KEY CHECK (erasure_id ~ '^era_[0-9a-f]{32}$'),
  erased_at  timestamptz NOT NULL,
  -- Who asked, as the operator named them; and the database role that ran the erasure.
  erased_by  text NOT NULL,
  erased_as  text NOT NULL,
  scope      text NOT NULL CHECK (scope IN ('principal', 'workflow')),
  -- The principal reference (the audits' keyed principal_ref) or the workflow id.
  scope_ref  text NOT NULL,
  reason     text,
  -- The audits in scope (kept), and what was removed: artifact bodies by SHA-256, memory rows by id.
  audit_ids  text[] NOT NULL,
  artifacts  text[] NOT NULL,
  memory_ids text[] NOT NULL
);
CREATE INDEX ttc_erasures_scope_idx ON ttc_erasures (scope, scope_ref);
CREATE TRIGGER ttc_erasures_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_erasures FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- Erases the scope (`principal` with a principal reference, or `workflow` with a workflow id) and returns its tombstone.
-- Runs as the owner (SECURITY DEFINER); nobody may call it until granted:
-- GRANT EXECUTE ON FUNCTION ttc_erase(text, text, text, text) TO <erasure role>.
-- An artifact body is removed in every month it was stored: the same bytes are the same data, whoever else's call
-- returned them too. Artifact references are read from the stored records with jsonb, which cannot hold NUL
-- ("\u0000", literal in these standard strings, is read as U+FFFD, inside a string either way).
DO $do$ BEGIN EXECUTE replace($fn$
CREATE FUNCTION @schema@.ttc_erase(scope text, scope_ref text, erased_by text, reason text) RETURNS @schema@.ttc_erasures
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = @schema@, pg_temp AS $body$
DECLARE
  erased @schema@.ttc_erasures;
BEGIN
  IF scope IS NULL OR scope NOT IN ('principal', 'workflow') OR scope_ref IS NULL OR scope_ref = '' OR erased_by IS NULL OR btrim(erased_by) = '' THEN
    RAISE EXCEPTION 'ttc_erase needs a scope (principal or workflow), its reference and who asked' USING ERRCODE = '22023';
  END IF;
  IF scope = 'principal' AND scope_ref !~ '^[0-9a-f]{64}$' THEN
    RAISE EXCEPTION 'a principal is named by its principal reference (64 hex characters)' USING ERRCODE = '22023';
  END IF;
  erased.erasure_id := 'era_' || replace(gen_random_uuid()::text, '-', '');
  erased.erased_at := now();
  erased.erased_by := erased_by;
  erased.erased_as := session_user;
  erased.scope := scope;
  erased.scope_ref := scope_ref;
  erased.reason := reason;
  -- No temporary table here: one the caller created beforehand (with a trigger of theirs) would run their code with
  -- the owner's rights.
  WITH scoped AS (
    SELECT a.audit_id, a.audit_json, a.model_result_json FROM @schema@.ttc_audit a WHERE scope = 'principal' AND a.principal_ref = scope_ref
    UNION ALL
    SELECT a.audit_id, a.audit_json, a.model_result_json FROM @schema@.ttc_audit a WHERE scope = 'workflow' AND a.workflow_id = scope_ref
  ), named AS (
    SELECT substr(r.id, 5) AS sha256
      FROM scoped s
     CROSS JOIN LATERAL (VALUES
       (CASE WHEN s.model_result_json IS JSON OBJECT THEN replace(s.model_result_json, '\u0000', '\ufffd')::jsonb #>> '{artifact,artifact_id}' END),
       (CASE WHEN s.audit_json IS JSON OBJECT THEN replace(s.audit_json, '\u0000', '\ufffd')::jsonb #>> '{recorded_output,artifact_id}' END)) AS r (id)
     WHERE r.id ~ '^art_[0-9a-f]{64}$'
  )
  SELECT (SELECT coalesce(array_agg(DISTINCT s.audit_id ORDER BY s.audit_id), '{}') FROM scoped s),
         (SELECT coalesce(array_agg(DISTINCT n.sha256 ORDER BY n.sha256), '{}') FROM named n)
    INTO erased.audit_ids, erased.artifacts;
  PERFORM set_config('ttc.retention_purge', 'on', true);
  DELETE FROM @schema@.ttc_artifacts WHERE sha256 = ANY (erased.artifacts);
  PERFORM set_config('ttc.retention_purge', 'off', true);
  IF scope = 'principal' THEN
    WITH gone AS (DELETE FROM @schema@.ttc_memory m WHERE m.subject_ref = scope_ref RETURNING m.memory_id)
    SELECT coalesce(array_agg(g.memory_id ORDER BY g.memory_id), '{}') INTO erased.memory_ids FROM gone g;
  ELSE
    WITH gone AS (DELETE FROM @schema@.ttc_memory m WHERE m.workflow_id = scope_ref RETURNING m.memory_id)
    SELECT coalesce(array_agg(g.memory_id ORDER BY g.memory_id), '{}') INTO erased.memory_ids FROM gone g;
  END IF;
  INSERT INTO @schema@.ttc_erasures SELECT erased.*;
  RETURN erased;
END;
$body$
$fn$, '@schema@', quote_ident(current_schema())); END $do$;
REVOKE EXECUTE ON FUNCTION ttc_erase(text, text, text, text) FROM PUBLIC;

-- The guard of evidence, artifacts and labels names every way out now (the setting is the same for all three).
CREATE OR REPLACE FUNCTION ttc_refuse_change_except_retention() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('ttc.retention_purge', true) = 'on' THEN
    RETURN NULL;
  END IF;
  RAISE EXCEPTION 'table % is immutable: % refused (rows leave only through ttc_purge_before, ttc_retire_before and ttc_erase)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'TT001';
END;
$$;

-- Verify reads the tombstones (an erased body is not a missing one).
CREATE OR REPLACE FUNCTION ttc_grant_application_role(app_role name) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ttc_grant_application_role_base(app_role);
  EXECUTE format('REVOKE ALL ON SEQUENCE %I.ttc_audit_seq FROM %I', current_schema(), app_role);
  EXECUTE format('GRANT USAGE ON SEQUENCE %I.ttc_audit_seq TO %I', current_schema(), app_role);
  EXECUTE format('GRANT EXECUTE ON FUNCTION %I.ttc_ensure_partitions(timestamptz) TO %I', current_schema(), app_role);
  EXECUTE format('GRANT SELECT, INSERT ON TABLE %I.ttc_audit_anchors TO %I', current_schema(), app_role);
  EXECUTE format('GRANT SELECT ON TABLE %I.ttc_audit_retirements, %I.ttc_retention_log, %I.ttc_erasures TO %I', current_schema(), current_schema(), current_schema(), app_role);
END;
$$;
