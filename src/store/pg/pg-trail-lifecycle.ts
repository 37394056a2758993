// Retention and erasure: the owner's two ways to remove audit data, each through its SECURITY DEFINER function, which
// records what it removed (migrations 007 and 008).
import type { AuditRetirement, ErasureRecord } from '../audit-trail/lifecycle-records.js';
import { checkSha256, checkText } from '../input-checks.js';
import { StoreError } from '../store-error.js';
import { qualifiedFunction } from './pg-schema.js';
import { ERASURE_COLUMNS, RETIREMENT_COLUMNS } from './pg-trail-records.js';
import { poolQueryable, type PgDatabase } from './sql-runner.js';

/**
 * Retires every month before `before` (`YYYY-MM-01`, not after the current month): `ttc_retire_before` drops the
 * months' partitions and records the run with the digest of the anchors exported first. `null` when there was
 * nothing to retire. Refused (`retention_refused`) while a row of those months is unsealed or a side effect
 * recorded in them is unsettled. Needs the owner's pool (or a role granted EXECUTE on the function).
 */
export async function retireMonths(
  database: PgDatabase,
  before: string,
  anchorsExportSha256: string,
): Promise<AuditRetirement | null> {
  if (!/^\d{4}-\d{2}-01$/.test(before))
    throw new StoreError('invalid_input', { field: 'before', problem: 'not_the_first_of_a_month' });
  const rows = await poolQueryable(database).query<AuditRetirement>(
    `SELECT ${RETIREMENT_COLUMNS} FROM ${qualifiedFunction(database.schema, 'ttc_retire_before')}($1::date, $2::text)`,
    [before, checkSha256(anchorsExportSha256, 'anchorsExportSha256')],
  );
  return rows[0] ?? null;
}

/** What to erase: a principal (by its principal reference, as the audits carry it) or a workflow, and who asked why. */
export interface ErasureRequest {
  readonly scope: 'principal' | 'workflow';
  /** The principal reference (`principalRef(principal, key)`) or the workflow id. */
  readonly scopeRef: string;
  readonly erasedBy: string;
  readonly reason: string | null;
}

/**
 * Erases a principal's or a workflow's artifact bodies and memory rows (`ttc_erase`) and returns the tombstone; the
 * audit rows and their digests stay, so the trail still verifies and says what was erased. Needs the owner's pool
 * (or a role granted EXECUTE on the function).
 */
export async function eraseScope(database: PgDatabase, request: ErasureRequest): Promise<ErasureRecord> {
  const scopeRef =
    request.scope === 'principal' ? checkSha256(request.scopeRef, 'scopeRef') : checkText(request.scopeRef, 'scopeRef');
  const rows = await poolQueryable(database).query<ErasureRecord>(
    `SELECT ${ERASURE_COLUMNS} FROM ${qualifiedFunction(database.schema, 'ttc_erase')}($1, $2, $3, $4)`,
    [
      request.scope,
      scopeRef,
      checkText(request.erasedBy, 'erasedBy'),
      request.reason === null ? null : checkText(request.reason, 'reason'),
    ],
  );
  const tombstone = rows[0];
  if (tombstone === undefined) throw new StoreError('internal', { problem: 'erasure returned no tombstone' });
  return tombstone;
}
