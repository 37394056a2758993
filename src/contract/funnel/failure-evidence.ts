import type { CallFailure } from '../call-failure.js';
import { buildEvidence, danglingPointers, type BuiltEvidence } from '../evidence.js';
import type { ModelError, Warning } from '../model-result.js';
import type { Redaction } from '../redaction.js';
import type { FunnelState } from './funnel-state.js';
import { scrubEvidence } from './scrubbed-evidence.js';

/** A failed result is not fitted to a budget, so the evidence it may show is bounded here (quotes by the tool's text budget). */
const MAX_FAILURE_EVIDENCE = 16;

/** What a failed result shows of the evidence its tool cited. */
export interface FailureEvidence {
  readonly evidence: readonly BuiltEvidence[];
  readonly warnings: readonly Warning[];
}

/**
 * The evidence a tool cited for its error (seed 000's error envelope: `"supports": ["/error/code"]`). A failed
 * result has no data, so `supports` are JSON Pointers into the model-visible `error` it is shown with (`/code`,
 * `/message`). It is shown only with the error it was cited for: when the side-effect rules replaced that error
 * (an unknown write), it supports nothing shown. Evidence that cannot be shown — malformed, a pointer that does not
 * resolve, a source off the tool's allowlist, more than 16 items — is left out with the warning `EVIDENCE_OMITTED`: evidence never
 * changes the failure it accompanies.
 */
export function failureEvidence(
  state: FunnelState,
  failure: CallFailure,
  shownError: ModelError,
  log: Redaction[],
): FailureEvidence {
  const cited = failure.evidence ?? [];
  if (cited.length === 0 || shownError.code !== failure.error.code) return { evidence: [], warnings: [] };
  let built: BuiltEvidence[];
  try {
    built = buildEvidence(cited, state.tool.source.label);
  } catch {
    return { evidence: [], warnings: [omitted(cited.length)] };
  }
  const allowlist = state.tool.source.allowlist;
  const shown = built
    .filter(
      (item) =>
        (allowlist === undefined || allowlist.includes(item.source)) &&
        danglingPointers([item.evidence], shownError).length === 0,
    )
    .slice(0, MAX_FAILURE_EVIDENCE);
  const warnings = shown.length < built.length ? [omitted(built.length - shown.length)] : [];
  return { evidence: scrubEvidence(state, shown, log), warnings };
}

function omitted(count: number): Warning {
  return { code: 'EVIDENCE_OMITTED', message: `${count} evidence item(s) cited for this error could not be shown.` };
}
