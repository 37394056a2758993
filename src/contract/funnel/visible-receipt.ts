import type { Receipt } from '../model-result.js';
import { receiptForModel } from '../receipt-visibility.js';
import type { Redaction } from '../redaction.js';
import type { FunnelState } from './funnel-state.js';

/**
 * The receipt as the model sees it: without its id when the tool keeps ids in the audit (`receiptVisibility`), else
 * its id scrubbed like any handler-supplied text (it can echo the idempotency key). The audit keeps the external id
 * exactly as the authoritative system gave it.
 */
export function visibleReceipt(state: FunnelState, log: Redaction[]): Receipt | null {
  return (
    state.receipt &&
    receiptForModel(state.receipt, state.tool.receiptVisibility, (id) =>
      state.redactor.text(id, '/execution/receipt/external_id', log),
    )
  );
}
