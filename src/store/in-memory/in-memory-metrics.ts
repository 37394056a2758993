import { contractMetricsOf, windowStart, type ContractMetrics, type MetricsWindow } from '../contract-metrics.js';
import { reconciliationMetricsSince } from './in-memory-reconciliation.js';
import type { InMemoryTables } from './in-memory-tables.js';

/** Counts audits by error code since the window's start; the figures come from the one shared derivation. */
export function contractMetrics(tables: InMemoryTables, window: MetricsWindow): ContractMetrics {
  const since = windowStart(window);
  const byCode: Record<string, number> = {};
  let attempts = 0;
  for (const { recordedAt, audit } of tables.audits.values()) {
    if (since !== null && Date.parse(recordedAt) < since.getTime()) continue;
    attempts += 1;
    if (audit.error_code !== null) byCode[audit.error_code] = (byCode[audit.error_code] ?? 0) + 1;
  }
  return contractMetricsOf(since, { attempts, byCode }, reconciliationMetricsSince(tables, since));
}
