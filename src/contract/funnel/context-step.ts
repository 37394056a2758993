import { catalogFailure } from '../call-failure.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, proceed, type StepResult } from './step.js';

/**
 * Before anything else: a call whose trusted values cannot be recorded (see `recordableContext`) is refused, since
 * it could be neither bound by digests nor audited as given. The code is `TOOL_ERROR`, not `INVALID_ARGUMENTS`:
 * the values are the host's, not arguments the model can correct, and retrying cannot change them (the entry is
 * not retryable). The handler never runs, so the outcome is `not_started`.
 */
export function refuseUnrecordableContext(state: FunnelState): StepResult {
  if (state.unrecordableContext.length === 0) return proceed(state);
  const fields = state.unrecordableContext.join(', ');
  const failure = catalogFailure('TOOL_ERROR', 'input', { reason: 'unrecordable_context' });
  return failLayer(
    state,
    'input',
    'trusted-context@1',
    failure,
    `trusted values that cannot be recorded as given: ${fields}`,
  );
}
