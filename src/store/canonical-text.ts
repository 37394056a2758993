import { CanonicalJsonError, canonicalJson } from '../contract/canonical-json.js';
import type { JsonValue } from '../contract/json-value.js';
import { StoreError } from './store-error.js';

/**
 * Serializes a value for storage as RFC 8785 canonical JSON text. Values JSON cannot represent exactly (NaN, lone
 * surrogates, class instances, cycles) are refused as `invalid_input` instead of being silently coerced.
 */
export function toCanonicalText(value: unknown, field: string): string {
  try {
    return canonicalJson(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError)
      throw new StoreError('invalid_input', { field, problem: error.reason, path: error.path });
    throw error;
  }
}

/** Parses JSON text this store wrote (canonical JSON, so parsing is exact for every value it accepted). */
export function fromCanonicalText(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}
