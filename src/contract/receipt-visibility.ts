import type { Receipt } from './model-result.js';

/**
 * Who sees a write's receipt id (the authoritative system's id for the committed write). Seed 000 puts it in the
 * side effect the model reads (`external_id`: the refund number a user asks for, the id the model reports back);
 * seed 001 keeps downstream receipts out of the model projection (an internal transaction reference the model has no
 * use for, and that can open lookups elsewhere). Both are needed, so a tool chooses: `model` (the default) shows
 * the id, redacted like any handler text; `audit_only` keeps it in the protected audit and shows the model a
 * receipt whose `external_id` is `null` — still a receipt, so the result still says the write is confirmed.
 */
export type ReceiptVisibility = 'model' | 'audit_only';

/** Visibility when a tool does not choose. */
export const DEFAULT_RECEIPT_VISIBILITY: ReceiptVisibility = 'model';

/** What `declareTool` refuses about a tool's receipt visibility (one line each). */
export function receiptVisibilityProblems(spec: {
  readonly effect: string;
  readonly receiptVisibility?: unknown;
}): string[] {
  const { receiptVisibility } = spec;
  if (receiptVisibility === undefined) return [];
  if (receiptVisibility !== 'model' && receiptVisibility !== 'audit_only')
    return [`receiptVisibility must be 'model' or 'audit_only'`];
  return spec.effect === 'read'
    ? ['receiptVisibility applies to side-effecting tools only (a read has no receipt)']
    : [];
}

/**
 * The receipt as the model sees it: under `audit_only` without its id; otherwise with the id `shownId` gives (the
 * caller redacts it). The audit keeps the id exactly as the authoritative system gave it, either way.
 */
export function receiptForModel(
  receipt: Receipt,
  visibility: ReceiptVisibility | undefined,
  shownId: (id: string) => string,
): Receipt {
  if ((visibility ?? DEFAULT_RECEIPT_VISIBILITY) === 'audit_only' || receipt.external_id === null)
    return { ...receipt, external_id: null };
  return { ...receipt, external_id: shownId(receipt.external_id) };
}
