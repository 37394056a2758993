import type { Receipt } from '../model-result.js';
import type { Redaction } from '../redaction.js';
import type { FunnelState } from './funnel-state.js';

/**
 * The receipt as the model sees it: its id scrubbed like any handler-supplied text (it can echo the idempotency
 * key). The audit keeps the external id exactly as the authoritative system gave it.
 */
export function visibleReceipt(state: FunnelState, log: Redaction[]): Receipt | null {
  return state.receipt && { ...state.receipt, external_id: state.redactor.text(state.receipt.external_id, '/execution/receipt/external_id', log) };
}
