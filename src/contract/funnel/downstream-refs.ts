import { wellFormedPrefix } from '../truncation.js';
import type { Downstream } from './funnel-state.js';

/** The downstream references a handler reported (`downstream`), or `current` when it reported none. */
export function readDownstream(
  reported: { readonly requestRef?: unknown; readonly statusRef?: unknown } | undefined,
  current: Downstream,
): Downstream {
  return reported ? { requestRef: auditText(reported.requestRef), statusRef: auditText(reported.statusRef) } : current;
}

/** Handler text for the audit, bounded like a receipt id and well-formed so the record stays storable. */
export function auditText(value: unknown): string | null {
  return typeof value === 'string' ? wellFormedPrefix(value, 256) : null;
}
