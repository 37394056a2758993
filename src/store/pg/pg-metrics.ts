import { contractMetricsOf, windowStart, type AuditCounts, type ContractMetrics, type MetricsWindow } from '../contract-metrics.js';
import { reconciliationMetrics } from './pg-reconciliation.js';
import type { Queryable } from './sql-runner.js';

/** Audited attempts of a window, per error code, from the indexed audit columns (never by parsing stored JSON). */
export async function auditCounts(db: Queryable, since: Date | null): Promise<AuditCounts> {
  const rows = await db.query<{ error_code: string | null; n: string }>(
    'SELECT error_code, count(*) AS n FROM ttc_audit WHERE $1::timestamptz IS NULL OR recorded_at >= $1 GROUP BY error_code',
    [since],
  );
  let attempts = 0;
  const byCode: Record<string, number> = {};
  for (const row of rows) {
    const n = Number(row.n);
    attempts += n;
    if (row.error_code !== null) byCode[row.error_code] = n;
  }
  return { attempts, byCode };
}

/** Seed 004's metrics over a window, from Postgres. */
export async function contractMetrics(db: Queryable, window: MetricsWindow): Promise<ContractMetrics> {
  const since = windowStart(window);
  const [counts, reconciliation] = await Promise.all([auditCounts(db, since), reconciliationMetrics(db, since)]);
  return contractMetricsOf(since, counts, reconciliation);
}
