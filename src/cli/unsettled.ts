import type { ReconciliationMetrics, ReconciliationRecord, ToolStore } from '../store/index.js';

/** Side effects whose outcome is still unknown, and how settling has gone so far. */
export interface UnsettledOutput {
  readonly unsettled: readonly ReconciliationRecord[];
  readonly metrics: ReconciliationMetrics;
}

/** Lists open and escalated reconciliations (oldest first) with the reconciliation metrics. */
export async function listUnsettled(store: ToolStore, options: { readonly limit?: number } = {}): Promise<UnsettledOutput> {
  const [unsettled, metrics] = await Promise.all([store.listUnsettled(options.limit === undefined ? {} : { limit: options.limit }), store.reconciliationMetrics()]);
  return { unsettled, metrics };
}
