-- 005: approval requests as the worker recorded them for the approver. Forward only: never edit once released.
--
-- An approver decides on what the worker wrote here when a call began to wait for approval, never on what a workflow
-- answers to a query (any workflow on the task queue can answer anything). The worker takes the workflow id and run
-- id from the activity that writes the row and computes the preview and the digest from the call's arguments itself.
-- A row is written once and never changed: the call waits until its deadline, or until it records an attempt.
CREATE TABLE ttc_approval_requests (
  workflow_id    text NOT NULL,
  run_id         text NOT NULL,
  call_id        text NOT NULL,
  tool           text NOT NULL,
  effect         text NOT NULL CHECK (effect IN ('read', 'write', 'destructive')),
  request_sha256 text NOT NULL CHECK (request_sha256 ~ '^[0-9a-f]{64}$'),
  -- Canonical JSON of { arguments, hidden }: the validated arguments with each hidden field a marker, and where.
  preview_json   text NOT NULL,
  requested_at   timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL CHECK (expires_at > requested_at),
  PRIMARY KEY (workflow_id, run_id, call_id)
);
-- `tool-contract pending` lists the requests still within their wait.
CREATE INDEX ttc_approval_requests_waiting_idx ON ttc_approval_requests (expires_at, requested_at);
CREATE TRIGGER ttc_approval_requests_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ttc_approval_requests FOR EACH STATEMENT EXECUTE FUNCTION ttc_refuse_change();

-- The application role's privileges (migration 002): approval requests are history, so SELECT and INSERT only; the
-- migrations table SELECT only, so that a worker holding nothing but the application role can confirm the schema is
-- current without migrating it (docker-compose runs it so). The function is redefined with the full list; migrate()
-- calls it on every run.
CREATE OR REPLACE FUNCTION ttc_grant_application_role(app_role name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  tbl name;
BEGIN
  FOR tbl IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'ttc\_%' LOOP
    EXECUTE format('REVOKE ALL ON TABLE %I.%I FROM %I', current_schema(), tbl, app_role);
  END LOOP;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), app_role);
  EXECUTE format('GRANT SELECT ON TABLE %I.ttc_schema_migrations TO %I', current_schema(), app_role);
  FOREACH tbl IN ARRAY ARRAY['ttc_audit', 'ttc_evidence', 'ttc_artifacts', 'ttc_state_patches', 'ttc_reconciliation_attempts',
                             'ttc_audit_facts', 'ttc_audit_layers', 'ttc_outcome_labels', 'ttc_approval_requests'] LOOP
    EXECUTE format('GRANT SELECT, INSERT ON TABLE %I.%I TO %I', current_schema(), tbl, app_role);
  END LOOP;
  FOREACH tbl IN ARRAY ARRAY['ttc_ledger', 'ttc_reconciliations', 'ttc_state', 'ttc_memory'] LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON TABLE %I.%I TO %I', current_schema(), tbl, app_role);
  END LOOP;
END;
$$;
REVOKE EXECUTE ON FUNCTION ttc_grant_application_role(name) FROM PUBLIC;
