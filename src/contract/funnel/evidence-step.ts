import { catalogFailure, type CallFailure } from '../call-failure.js';
import type { AnyToolImplementation } from '../tool-spec.js';
import { buildEvidence, danglingPointers, EvidenceError, type BuiltEvidence } from '../evidence.js';
import type { Warning } from '../model-result.js';
import { EVIDENCE_FAILURE_MESSAGES } from '../error-catalog.js';
import { checkQuotesInSource } from '../quote-source.js';
import { readTime } from '../time.js';
import { checkConflicts } from './conflicts.js';
import { contractFailure } from './contract-failure.js';
import { envelopeOf, type FunnelState } from './funnel-state.js';
import { failLayer, passLayer, warnLayer, type StepResult } from './step.js';

/** The source labels a tool may report: its own `source.label` and every label of `source.allowlist`. */
export function declaredSourceLabels(tool: AnyToolImplementation): readonly string[] {
  return [tool.source.label, ...(tool.source.allowlist ?? [])];
}

/**
 * Evidence layer: every reported source among the tool's declared labels, every evidence pointer resolving in the data,
 * every quote found in the raw response the handler kept (else that evidence is left out, with a warning), the data
 * fresh enough (or a warning, as the tool declares), and every reported conflict naming a real field.
 * Data let through with a warning (stale in `warn` mode, of unknown age, or with unresolved conflicts) makes the
 * layer `warned`.
 */
export function checkEvidence(state: FunnelState): StepResult {
  const { tool } = state;
  const output = envelopeOf(state);
  const rule = `evidence@2;policy=${tool.revisions.policy}`;
  const fail = (failure: CallFailure, reason: string) => failLayer(state, 'evidence', rule, failure, reason);
  const sourceLabel = output.sourceLabel ?? tool.source.label;
  let evidence: BuiltEvidence[];
  try {
    evidence = buildEvidence(output.evidence ?? [], sourceLabel);
  } catch (error) {
    const reason = error instanceof EvidenceError ? error.message : 'malformed evidence';
    const problem = error instanceof EvidenceError ? error.problem : 'malformed';
    return fail(contractFailure('evidence', reason, EVIDENCE_FAILURE_MESSAGES[problem]), reason);
  }
  // A label the handler reports is a claim about where data came from; only the labels the tool declared count.
  const declared = declaredSourceLabels(tool);
  const disallowed = [sourceLabel, ...evidence.map((item) => item.source)].filter((label) => !declared.includes(label));
  if (disallowed.length > 0) {
    const reason = `sources the tool does not declare: ${[...new Set(disallowed)].join(', ')}`;
    return fail(catalogFailure('SOURCE_NOT_ALLOWED', 'evidence', { disallowed }), reason);
  }
  const dangling = danglingPointers(
    evidence.map((item) => item.evidence),
    state.data,
  );
  if (dangling.length > 0)
    return fail(
      contractFailure('evidence', { dangling }, EVIDENCE_FAILURE_MESSAGES.dangling),
      `evidence pointers do not resolve: ${dangling.join(', ')}`,
    );

  // A quote the source the handler kept does not contain is not evidence of anything: it is left out, and said so.
  const quotes = checkQuotesInSource(evidence, output.rawResponse);
  const unquoted = quotes.kind === 'checked' ? new Set(quotes.missing) : new Set<BuiltEvidence>();
  if (unquoted.size > 0) evidence = evidence.filter((item) => !unquoted.has(item));

  let observedAt: string | null = null;
  if (output.observedAt !== undefined) {
    const reading = readTime(output.observedAt);
    if (!reading.ok) {
      const reason = `observedAt is ${reading.reason}`;
      return fail(contractFailure('evidence', reason, EVIDENCE_FAILURE_MESSAGES.observedAt), reason);
    }
    observedAt = reading.iso;
  }
  // What this layer lets through with a warning: its verdict is `warned`, never `passed`.
  const warnings: Warning[] = [];
  if (unquoted.size > 0) {
    warnings.push({
      code: 'EVIDENCE_OMITTED',
      message: `${unquoted.size} evidence item(s) quoted text their source does not contain.`,
    });
  }
  if (tool.freshness) {
    const { maxAgeMs, onStale } = tool.freshness;
    if (observedAt === null) {
      warnings.push({ code: 'FRESHNESS_UNKNOWN', message: 'The source did not say when this data was observed.' });
    } else {
      const ageMs = state.now() - Date.parse(observedAt);
      if (ageMs > maxAgeMs) {
        const reason = `data is ${ageMs} ms old; the tool allows ${maxAgeMs} ms`;
        if (onStale === 'fail') return fail(catalogFailure('STALE_DATA', 'evidence', { ageMs, maxAgeMs }), reason);
        warnings.push({ code: 'STALE_DATA', message: `This data may be out of date (older than ${maxAgeMs} ms).` });
      }
    }
  }
  const conflicts = checkConflicts(tool, output.conflicts ?? [], state.data);
  if (!conflicts.ok)
    return fail(contractFailure('evidence', conflicts.reason, EVIDENCE_FAILURE_MESSAGES.conflicts), conflicts.reason);
  if (conflicts.conflicts.some((c) => c.resolution === 'unresolved')) {
    warnings.push({ code: 'CONFLICTING_SOURCES', message: 'Sources disagree on some fields; see conflicts.' });
  }
  const changes = {
    checked: { evidence, observedAt, conflicts: conflicts.conflicts },
    warnings: [...state.warnings, ...warnings],
  };
  if (warnings.length === 0) return passLayer(state, 'evidence', rule, changes);
  return warnLayer(state, 'evidence', rule, `warned: ${warnings.map((warning) => warning.code).join(', ')}`, changes);
}
