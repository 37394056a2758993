import { catalogFailure } from '../call-failure.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, passLayer, skipLayer, type StepResult } from './step.js';

const RULE = 'receipt@1';

/** Side-effect layer: a write is confirmed only by the authoritative system's receipt; without one its fate is unknown. */
export function confirmSideEffect(state: FunnelState): StepResult {
  if (state.tool.effect === 'read') return skipLayer(state, 'side_effect', 'read-only');
  if (state.receipt === null) {
    const failure = catalogFailure('OUTCOME_UNKNOWN', 'side_effect', { reason: 'write returned without a receipt' });
    return failLayer(state, 'side_effect', RULE, failure, 'no receipt from the authoritative system');
  }
  return passLayer(state, 'side_effect', RULE);
}
