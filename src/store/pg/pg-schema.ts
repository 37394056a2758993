import { StoreError } from '../store-error.js';

/** The schema the store's tables live in when none is given. */
export const DEFAULT_SCHEMA = 'public';

/** Every table the migrations create; a statement names one only through {@link qualifiedTable}. */
export type TableName =
  | 'ttc_approval_requests'
  | 'ttc_audit'
  | 'ttc_audit_anchors'
  | 'ttc_audit_facts'
  | 'ttc_audit_layers'
  | 'ttc_audit_retirements'
  | 'ttc_artifacts'
  | 'ttc_erasures'
  | 'ttc_evidence'
  | 'ttc_ledger'
  | 'ttc_memory'
  | 'ttc_outcome_labels'
  | 'ttc_reconciliation_attempts'
  | 'ttc_reconciliations'
  | 'ttc_retention_log'
  | 'ttc_schema_migrations'
  | 'ttc_state'
  | 'ttc_state_patches';

/**
 * Checks a schema name for the store. Only lower-case unquoted-style identifiers pass: the name is spliced into SQL
 * text (quoted), so it must be unable to close the quote, and a mixed-case name would silently differ from the one
 * an operator's unquoted `CREATE SCHEMA MyApp` made (`myapp`).
 */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new StoreError('invalid_input', { field: 'schema', problem: 'not_a_lower_case_identifier' });
  }
  return schema;
}

/**
 * `"<schema>".<table>`: every statement names its tables this way, so the store never depends on a connection's
 * `search_path` (which a transaction-mode pooler does not keep per client). `schema` must have passed
 * {@link checkSchemaName}.
 */
export function qualifiedTable(schema: string, table: TableName): string {
  return `"${schema}".${table}`;
}

/** The functions the migrations define that the package calls; a statement names one only through {@link qualifiedFunction}. */
export type FunctionName = 'ttc_ensure_partitions' | 'ttc_retire_before' | 'ttc_erase';

/** `"<schema>".<function>`, like {@link qualifiedTable}. */
export function qualifiedFunction(schema: string, name: FunctionName): string {
  return `"${schema}".${name}`;
}
