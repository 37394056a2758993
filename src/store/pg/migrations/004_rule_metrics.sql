-- 004: metrics by tool and rule version, and outcome labels (seed 004 §8). Forward only: never edit once released.
--
-- The audit stays the record; these tables are query copies of what it says, written in the same transaction as
-- the audit row, so the metrics read narrow indexed rows instead of parsing stored JSON.

-- One row per audited attempt: what the metrics count. `accepted` = the attempt ended without an error (succeeded,
-- or partial because cut), the counterpart of a refusal.
CREATE TABLE ttc_audit_facts (
  audit_id    text PRIMARY KEY REFERENCES ttc_audit (audit_id),
  tool        text NOT NULL,
  error_code  text,
  accepted    boolean NOT NULL,
  -- Warning codes the model result carried (STALE_DATA, CONFLICTING_SOURCES, EVIDENCE_OMITTED, ...), each once.
  warnings    text[] NOT NULL,
  recorded_at timestamptz NOT NULL
);
-- Metrics over a window, for every tool or for one.
CREATE INDEX ttc_audit_facts_time_idx ON ttc_audit_facts (recorded_at) INCLUDE (tool, accepted, error_code, warnings);
CREATE INDEX ttc_audit_facts_tool_idx ON ttc_audit_facts (tool, recorded_at) INCLUDE (accepted, error_code, warnings);
CREATE TRIGGER ttc_audit_facts_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit_facts FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- One row per layer that decided an attempt (skipped layers are not stored): which rule version passed, warned
-- or failed it.
CREATE TABLE ttc_audit_layers (
  audit_id     text NOT NULL REFERENCES ttc_audit (audit_id),
  tool         text NOT NULL,
  layer        text NOT NULL,
  outcome      text NOT NULL CHECK (outcome IN ('passed', 'warned', 'failed')),
  rule_version text NOT NULL,
  accepted     boolean NOT NULL,
  recorded_at  timestamptz NOT NULL,
  PRIMARY KEY (audit_id, layer)
);
CREATE INDEX ttc_audit_layers_time_idx ON ttc_audit_layers (recorded_at) INCLUDE (tool, layer, rule_version, outcome, accepted);
CREATE INDEX ttc_audit_layers_tool_idx ON ttc_audit_layers (tool, recorded_at) INCLUDE (layer, rule_version, outcome, accepted);
CREATE TRIGGER ttc_audit_layers_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_audit_layers FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- Ground truth added later by a person: an accepted result that was wrong (false_accept) or a refused one that was
-- right (false_reject). Append-only; the id is a digest of the label, so labelling again is a no-op.
CREATE TABLE ttc_outcome_labels (
  label_id    text PRIMARY KEY CHECK (label_id ~ '^lbl_[0-9a-f]{32}$'),
  audit_id    text NOT NULL REFERENCES ttc_audit (audit_id),
  label       text NOT NULL CHECK (label IN ('false_accept', 'false_reject')),
  labelled_by text NOT NULL,
  note        text,
  labelled_at timestamptz NOT NULL
);
CREATE INDEX ttc_outcome_labels_audit_idx ON ttc_outcome_labels (audit_id, label);
CREATE TRIGGER ttc_outcome_labels_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_outcome_labels FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- `inspect` lists a workflow's memory.
CREATE INDEX ttc_memory_workflow_idx ON ttc_memory (workflow_id, created_at);

-- Attempts recorded before this migration, from their stored JSON. jsonb cannot hold NUL: the rare record whose
-- text escapes one (`\u0000`, literal in this standard string) is left out of the copies, never altered.
INSERT INTO ttc_audit_facts (audit_id, tool, error_code, accepted, warnings, recorded_at)
SELECT a.audit_id, a.tool, a.error_code, a.error_code IS NULL,
       ARRAY(SELECT DISTINCT w ->> 'code' FROM jsonb_array_elements(r.m -> 'warnings') AS w ORDER BY 1), a.recorded_at
  FROM ttc_audit a
 CROSS JOIN LATERAL (SELECT CASE WHEN strpos(a.model_result_json, '\u0000') = 0 THEN a.model_result_json::jsonb END AS m) r
 WHERE r.m IS NOT NULL;

INSERT INTO ttc_audit_layers (audit_id, tool, layer, outcome, rule_version, accepted, recorded_at)
SELECT a.audit_id, a.tool, v ->> 'layer', v ->> 'outcome', v ->> 'rule_version', a.error_code IS NULL, a.recorded_at
  FROM ttc_audit a
 CROSS JOIN LATERAL (SELECT CASE WHEN strpos(a.audit_json, '\u0000') = 0 THEN a.audit_json::jsonb END AS j) r
 CROSS JOIN LATERAL jsonb_array_elements(r.j -> 'validation') AS v
 WHERE r.j IS NOT NULL AND v ->> 'outcome' <> 'skipped';

-- The application role's privileges (migration 002): the copies and the labels are history, so SELECT and INSERT
-- only. The function is redefined with the full list; migrate() calls it on every run.
CREATE OR REPLACE FUNCTION ttc_grant_application_role(app_role name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  tbl name;
BEGIN
  FOR tbl IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'ttc\_%' LOOP
    EXECUTE format('REVOKE ALL ON TABLE %I.%I FROM %I', current_schema(), tbl, app_role);
  END LOOP;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), app_role);
  FOREACH tbl IN ARRAY ARRAY['ttc_audit', 'ttc_evidence', 'ttc_artifacts', 'ttc_state_patches', 'ttc_reconciliation_attempts',
                             'ttc_audit_facts', 'ttc_audit_layers', 'ttc_outcome_labels'] LOOP
    EXECUTE format('GRANT SELECT, INSERT ON TABLE %I.%I TO %I', current_schema(), tbl, app_role);
  END LOOP;
  FOREACH tbl IN ARRAY ARRAY['ttc_ledger', 'ttc_reconciliations', 'ttc_state', 'ttc_memory'] LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON TABLE %I.%I TO %I', current_schema(), tbl, app_role);
  END LOOP;
END;
$$;
REVOKE EXECUTE ON FUNCTION ttc_grant_application_role(name) FROM PUBLIC;
