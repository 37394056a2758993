import type { ValidationLayer } from '../audit-record.js';
import { catalogFailure, type CallFailure } from '../call-failure.js';

/**
 * The handler's output broke its contract at `layer` (`OUTPUT_CONTRACT_VIOLATION`); `message`, one of the code's
 * fixed variants (e.g. `EVIDENCE_FAILURE_MESSAGES`), tells the model why in its terms instead of the catalog text.
 */
export function contractFailure(layer: ValidationLayer, detail: unknown, message?: string): CallFailure {
  return catalogFailure('OUTPUT_CONTRACT_VIOLATION', layer, detail, message === undefined ? {} : { message });
}
