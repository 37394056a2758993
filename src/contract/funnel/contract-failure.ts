import type { ValidationLayer } from '../audit-record.js';
import { catalogFailure, type CallFailure } from '../call-failure.js';

/** The handler's output broke its contract at `layer` (`OUTPUT_CONTRACT_VIOLATION`). */
export function contractFailure(layer: ValidationLayer, detail: unknown): CallFailure {
  return catalogFailure('OUTPUT_CONTRACT_VIOLATION', layer, detail);
}
