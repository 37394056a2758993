import { numbersIn } from './claim-support.js';
import { resolvePointer } from './json-pointer.js';

/** A piece of evidence as a result returns it: the pointers it supports, and the quote that should show them. */
export interface QuotedEvidence {
  readonly supports: readonly string[];
  readonly quote?: string | undefined;
}

/**
 * The supported pointers whose values `evidence.quote` does not show, in `data` (empty when it has no quote). The
 * comparison is normalised: Unicode NFKC, case and runs of white space do not matter, and a number matches any
 * number in the quote with the same value (`3,500` and `3500.0` show 3500). A scalar must appear in the quote; an
 * object or array is shown when one of its scalars is (a quote names a record by a field, not by all of them). A
 * pointer that does not resolve is never shown.
 */
export function unquotedPointers(evidence: QuotedEvidence, data: unknown): string[] {
  if (evidence.quote === undefined) return [];
  const quote = normalised(evidence.quote);
  const numbers = new Set(numbersIn(quote));
  const shows = (value: unknown): boolean => {
    if (typeof value === 'number') return numbers.has(value) || quote.includes(normalised(String(value)));
    if (typeof value === 'string') return quote.includes(normalised(value));
    if (typeof value === 'boolean' || value === null) return quote.includes(String(value));
    const members: unknown[] = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    return members.length === 0 || members.some(shows);
  };
  return evidence.supports.filter((pointer) => {
    const resolved = resolvePointer(data, pointer);
    return !resolved.found || !shows(resolved.value);
  });
}

function normalised(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}
