import { StoreError } from './store-error.js';

/**
 * Checks a string bound for a text column. Postgres text cannot hold NUL, and the driver would silently replace
 * a lone surrogate with U+FFFD, so either would come back different from what was written: refuse them instead.
 */
export function checkText(value: unknown, field: string, options: { readonly allowEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') throw new StoreError('invalid_input', { field, problem: 'not_a_string' });
  if (!options.allowEmpty && value.length === 0) throw new StoreError('invalid_input', { field, problem: 'empty' });
  if (!value.isWellFormed()) throw new StoreError('invalid_input', { field, problem: 'lone_surrogate' });
  if (value.includes('\u0000')) throw new StoreError('invalid_input', { field, problem: 'nul_character' });
  return value;
}

/** {@link checkText} for a nullable column. */
export function checkOptionalText(value: unknown, field: string): string | null {
  return value === null || value === undefined ? null : checkText(value, field, { allowEmpty: true });
}

/** Checks a list of ids (non-empty strings, no duplicates). */
export function checkIdList(values: unknown, field: string): string[] {
  if (!Array.isArray(values)) throw new StoreError('invalid_input', { field, problem: 'not_an_array' });
  const ids = values.map((value, i) => checkText(value, `${field}/${i}`));
  if (new Set(ids).size !== ids.length) throw new StoreError('invalid_input', { field, problem: 'duplicate_id' });
  return ids;
}

/** Parses an ISO-8601 timestamp with an explicit offset; returns the instant. */
export function checkTimestamp(value: unknown, field: string): Date {
  if (
    typeof value !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
  ) {
    throw new StoreError('invalid_input', { field, problem: 'not_an_iso_timestamp' });
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new StoreError('invalid_input', { field, problem: 'not_an_iso_timestamp' });
  return date;
}

/** {@link checkTimestamp} for a nullable column. */
export function checkOptionalTimestamp(value: unknown, field: string): Date | null {
  return value === null || value === undefined ? null : checkTimestamp(value, field);
}

/** Checks a non-negative integer that fits a Postgres `integer`. */
export function checkCount(value: unknown, field: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 2_147_483_646) {
    throw new StoreError('invalid_input', { field, problem: 'not_a_valid_integer' });
  }
  return value;
}

/** Checks a lowercase hex SHA-256 digest. */
export function checkSha256(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value))
    throw new StoreError('invalid_input', { field, problem: 'not_a_sha256' });
  return value;
}
