import type { CallFailure } from '../call-failure.js';
import { catalogDisagreements } from '../catalog-rule.js';
import type { ModelResult } from '../model-result.js';
import { publishedShapeIssues } from '../published-shape.js';
import { auditBytes, MAX_AUDIT_BYTES } from './audit-bounds.js';
import { auditProjection } from './audit-projection.js';
import { contractFailure } from './contract-failure.js';
import { failureResult } from './failure-result.js';
import type { FunnelState } from './funnel-state.js';
import { withVerdict } from './step.js';
import type { ArtifactPayload, ToolExecution } from './tool-execution.js';

/**
 * Binds the audit to the model result of a call that passed every layer. When the audit cannot be kept within
 * {@link MAX_AUDIT_BYTES}, the result is refused instead — its audit could not record what the model would have
 * seen: `OUTPUT_CONTRACT_VIOLATION` with detail `audit_too_large`, settled like any failure, so a committed write
 * keeps its receipt and is never told `failed`.
 */
export function succeededExecution(state: FunnelState): ToolExecution {
  const shown = state.shown;
  if (shown === null) throw new Error('internal: the funnel finished without a model result');
  assertPublishedShape(shown.modelResult, state);
  const audit = auditProjection(state, shown.modelResult, null);
  const bytes = auditBytes(audit);
  if (bytes <= MAX_AUDIT_BYTES) {
    return {
      modelResult: shown.modelResult,
      audit,
      artifacts: [...shown.artifacts, ...recordingOf(state)],
      evidenceSources: shown.evidenceSources,
      ...(shown.job ? { job: shown.job } : {}),
    };
  }
  const size = Number.isFinite(bytes) ? { bytes } : {};
  const reason = Number.isFinite(bytes)
    ? `the audit record would be ${bytes} bytes`
    : 'the audit record has no canonical form';
  const refused = withVerdict(state, {
    layer: 'budget',
    outcome: 'failed',
    rule_version: `audit@1;bytes=${MAX_AUDIT_BYTES}`,
    reason,
  });
  return failedExecutionOf(
    refused,
    contractFailure('budget', { reason: 'audit_too_large', ...size, limit: MAX_AUDIT_BYTES }),
  );
}

/**
 * Both projections of a call that failed with `failure`, from what the funnel knew at that point. An audit over
 * {@link MAX_AUDIT_BYTES} is made compact; the outcome stays (nothing was shown, so only detail is lost).
 */
export function failedExecutionOf(state: FunnelState, failure: CallFailure): ToolExecution {
  const { modelResult, errorDetail, redactions, evidenceSources } = failureResult(state, failure);
  const settled = { ...state, redactions: [...state.redactions, ...redactions] };
  assertPublishedShape(modelResult, state);
  const audit = auditProjection(settled, modelResult, errorDetail);
  const bounded =
    auditBytes(audit) <= MAX_AUDIT_BYTES ? audit : auditProjection(settled, modelResult, errorDetail, 'compact');
  return { modelResult, audit: bounded, artifacts: recordingOf(state), evidenceSources };
}

/** The recorded call (`recordRawOutput`), whatever the outcome: failures are the cases a golden set needs most. */
function recordingOf(state: FunnelState): ArtifactPayload[] {
  return state.recording === null ? [] : [state.recording];
}

/**
 * Defence in depth: a result must satisfy its own published schema before anyone sees it, and its error must be the
 * catalog's or, for a business code, exactly what this tool declared (the one check the schema cannot make).
 */
function assertPublishedShape(modelResult: ModelResult, { tool }: FunnelState): void {
  const issues = publishedShapeIssues(modelResult);
  if (issues.length > 0)
    throw new Error(
      `internal: model result violates tool-result.model.v1 at ${issues.map((issue) => issue.path).join(', ')}`,
    );
  const disagreements =
    modelResult.error === null ? [] : catalogDisagreements(modelResult.error, tool.businessErrors ?? {});
  if (disagreements.length > 0)
    throw new Error(`internal: model result error disagrees with the catalog: ${disagreements.join('; ')}`);
}
