import { fitToBudget, fitWithoutData, type ResultBase } from '../fit-budget.js';
import { MODEL_RESULT_SCHEMA_VERSION, type Execution, type ModelResult } from '../model-result.js';
import { SECRET_CATALOG_VERSION, type Redaction } from '../redaction.js';
import { REDACTION_WARNING } from '../redaction/redaction-notice.js';
import { wellFormedPrefix } from '../truncation.js';
import { validUntil } from '../validity-window.js';
import { canonicalDataOf } from './data-shape-step.js';
import { checkedOf, envelopeOf, type FunnelState } from './funnel-state.js';
import { shownPresentation } from '../presentation.js';
import { pagingOf } from './page-continuation.js';
import { scrubHandlerParts } from './scrubbed-parts.js';
import { proceed, withVerdict, type StepResult } from './step.js';
import type { ArtifactPayload, ShownResult } from './tool-execution.js';
import { visibleReceipt } from './visible-receipt.js';

/**
 * Redaction and budget layers: builds the model result of a call that passed every check — redacted, cut to the
 * tool's budget, and pointing to the full result (an artifact) when anything was cut.
 */
export function redactAndFit(state: FunnelState): StepResult {
  const { tool } = state;
  const output = envelopeOf(state);
  const checked = checkedOf(state);
  const log: Redaction[] = [];
  const parts = scrubHandlerParts(state, output, checked, log);
  const execution: Execution = {
    outcome: tool.effect === 'read' ? 'none' : 'committed',
    delivery: 'fresh',
    receipt: visibleReceipt(state, log),
  };
  const resourceRevision = output.resourceRevision;
  const base: ResultBase = {
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    tool: tool.name,
    error: null,
    execution,
    provenance: {
      source_label: wellFormedPrefix(
        state.redactor.text(output.sourceLabel ?? tool.source.label, '/provenance/source_label', log),
        256,
      ),
      source_type: tool.source.type,
      producer_revision: tool.revisions.producer,
      resource_revision:
        typeof resourceRevision === 'string'
          ? wellFormedPrefix(state.redactor.text(resourceRevision, '/provenance/resource_revision', log), 256)
          : null,
      observed_at: checked.observedAt,
      retrieved_at: new Date(state.startedAt).toISOString(),
      trust: tool.source.trust ?? 'untrusted_data',
      ...(tool.validForMs === undefined
        ? {}
        : { valid_until: validUntil(checked.observedAt, new Date(state.startedAt).toISOString(), tool.validForMs) }),
    },
    conflicts: [...parts.conflicts],
    warnings: [...state.warnings],
    ...(parts.appliedArguments === undefined
      ? {}
      : { applied_arguments: parts.appliedArguments as ModelResult['applied_arguments'] }),
  };
  if (output.presentation !== undefined && state.overRawSize === null) {
    const presented = shownPresentation(output.presentation, state.data, state.redactor, log, tool.budget.maxTextChars);
    if (presented.kind === 'shown') base.presentation = presented.presentation;
    else
      base.warnings.push({
        code: 'PRESENTATION_UNSUPPORTED',
        message: 'The tool offered a summary its data does not support; it was left out.',
      });
  }
  // The model learns that something was withheld (the audit says what): from the parts above here, from `data` in
  // the fitting below, where the warning's bytes count against the budget like any other.
  if (state.redactions.length > 0 || log.length > 0) base.warnings.push(REDACTION_WARNING);
  // Over the raw size gate the data was never validated, so it goes straight to the result without data.
  const fit = state.overRawSize === null ? fitToBudget : fitWithoutData;
  const fitted = fit({
    base,
    data: state.data,
    // Only what the model will see is redacted: the cut comes first, so a 10,000-item result is not walked twice.
    redact: (shown, dataLog) => state.redactor.value(shown, '/data', dataLog),
    evidence: parts.evidence,
    untrusted: parts.untrusted,
    budget: tool.budget,
    pagination: { next: parts.next, availableItems: output.availableItems ?? null },
    paging: pagingOf(state, parts.next),
    redactionWarning: REDACTION_WARNING,
  });
  const redactions = [...state.redactions, ...log, ...fitted.redactions];
  let modelResult = fitted.modelResult;
  let artifacts: ArtifactPayload[] = [];
  if (fitted.truncated) {
    // The full result goes out of band to protected storage; the model sees a reference it cannot forge.
    const artifact = {
      ...(state.canonicalData ?? canonicalDataOf(output, state.sha256)),
      contentType: 'application/json',
    };
    artifacts = [artifact];
    modelResult = {
      ...modelResult,
      artifact: { artifact_id: `art_${artifact.sha256}`, content_type: artifact.contentType, bytes: artifact.bytes },
    };
  }
  const shown: ShownResult = {
    modelResult,
    artifacts,
    evidenceSources: Object.fromEntries(fitted.evidence.map((item) => [item.evidence.evidence_id, item.source])),
  };
  const budget = tool.budget;
  const isolated = state.isolatedTexts;
  const notes = [
    ...(redactions.length > 0 ? [`${redactions.length} value(s) removed`] : []),
    ...(isolated.length > 0
      ? [`${isolated.length} text(s) moved to untrusted_content: ${isolated.slice(0, 8).join(', ')}`]
      : []),
  ];
  const redacted = withVerdict(state, {
    layer: 'redaction',
    outcome: notes.length > 0 ? 'warned' : 'passed',
    // Which secret formats judged the result, and the tool's own field policy: either changes what gets hidden.
    rule_version: `redaction@1;catalog=${SECRET_CATALOG_VERSION};fields=${tool.revisions.policy}`,
    ...(notes.length > 0 ? { reason: wellFormedPrefix(notes.join('; '), 1000) } : {}),
  });
  const budgeted = withVerdict(redacted, {
    layer: 'budget',
    outcome: fitted.truncated ? 'warned' : 'passed',
    rule_version: `budget@1;bytes=${budget.maxBytes};items=${budget.maxItems};text=${budget.maxTextChars}`,
    ...(fitted.truncated ? { reason: fitted.modelResult.completeness.reason ?? 'truncated' } : {}),
  });
  return proceed(budgeted, { redactions, shown });
}
