import { Redactor } from '../contract/redaction.js';

/** A fact is one text, not a record: no field names to hide. One list, so the redactor's name rules are built once. */
const NO_FIELDS: readonly string[] = Object.freeze([]);

/**
 * A memory fact as it is stored: with the secrets of the catalog hidden by the engine that redacts model results. A
 * fact is text a workflow wrote, often from what a model said; memory is read back into later prompts and shown by
 * `inspect`, so a credential kept in it would outlive the call that leaked it. Both stores keep (and compare a
 * retried proposal by) this form.
 */
export function storedMemoryFact(fact: string): string {
  return new Redactor({ sensitiveFields: NO_FIELDS, protectedSubstrings: [], protectedExact: [] }).text(
    fact,
    '/fact',
    [],
  );
}
