import type { BuiltEvidence } from '../evidence.js';
import type { Redaction } from '../redaction.js';
import { cutText } from '../truncation.js';
import type { FunnelState } from './funnel-state.js';

/** Longest evidence locator shown to a model (a URI or a record path; anything longer is cut with a marker). */
const MAX_LOCATOR_CHARS = 2048;

/**
 * Evidence as a model may see it: kinds, locators (often URLs, which can carry tokens) and quotes (free text) pass
 * the redactor and are bounded. Ids are kept: they were derived before scrubbing, so citations stay stable.
 */
export function scrubEvidence(state: FunnelState, items: readonly BuiltEvidence[], log: Redaction[]): BuiltEvidence[] {
  const scrub = (text: string, path: string) => state.redactor.text(text, path, log);
  return items.map((item) => {
    const path = `/evidence/${item.evidence.evidence_id}`;
    const scrubbed = {
      ...item.evidence,
      kind: scrub(item.evidence.kind, `${path}/kind`),
      locator: cutText(scrub(item.evidence.locator, `${path}/locator`), MAX_LOCATOR_CHARS),
    };
    if (item.evidence.quote !== undefined) {
      scrubbed.quote = cutText(scrub(item.evidence.quote, `${path}/quote`), state.tool.budget.maxTextChars);
    }
    return { ...item, evidence: scrubbed };
  });
}
