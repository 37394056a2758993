import type { CallFailure } from '../call-failure.js';
import { guardedParse } from '../guarded-parse.js';
import { modelResultSchema, type ModelResult } from '../model-result.js';
import { auditProjection } from './audit-projection.js';
import { failureResult } from './failure-result.js';
import type { FunnelState } from './funnel-state.js';
import type { ShownResult, ToolExecution } from './tool-execution.js';

/** Binds the audit to the model result of a call that passed every layer. */
export function succeededExecution(state: FunnelState): ToolExecution {
  const shown = state.shown;
  if (shown === null) throw new Error('internal: the funnel finished without a model result');
  return bound(state, shown, null);
}

/** Both projections of a call that failed with `failure`, from what the funnel knew at that point. */
export function failedExecutionOf(state: FunnelState, failure: CallFailure): ToolExecution {
  const projection = failureResult(state, failure);
  const settled = { ...state, redactions: [...state.redactions, ...projection.redactions] };
  return bound(settled, { modelResult: projection.modelResult, artifacts: [], evidenceSources: {} }, projection.errorDetail);
}

function bound(state: FunnelState, shown: ShownResult, errorDetail: unknown): ToolExecution {
  assertPublishedShape(shown.modelResult);
  return { modelResult: shown.modelResult, audit: auditProjection(state, shown.modelResult, errorDetail), artifacts: shown.artifacts, evidenceSources: shown.evidenceSources };
}

/** Defence in depth: a result must satisfy its own published schema before anyone sees it. */
function assertPublishedShape(modelResult: ModelResult): void {
  const checked = guardedParse(modelResultSchema, modelResult);
  if (!checked.success) throw new Error(`internal: model result violates tool-result.model.v1 at ${checked.issues.map((issue) => issue.path).join(', ')}`);
}
