import { authoritativeSwitches, withAuthoritativeValues } from '../authoritative-sources.js';
import { canonicalDataOf } from './data-shape-step.js';
import { envelopeOf, type FunnelState } from './funnel-state.js';
import { proceed, type StepResult } from './step.js';

/**
 * Switches the fields the tool declares an authoritative source for to that source's value, where the handler reported
 * a conflict that includes it (see `authoritative-sources.ts`). Runs before the schema layer, so the value shown is
 * validated like the rest; the artifact keeps the data as the handler returned it.
 */
export function applyAuthoritativeSources(state: FunnelState): StepResult {
  if (state.overRawSize !== null) return proceed(state);
  const envelope = envelopeOf(state);
  const switches = authoritativeSwitches(state.tool.authoritativeSources, envelope.conflicts, envelope.data);
  if (switches.length === 0) return proceed(state);
  return proceed(state, {
    envelope: { ...envelope, data: withAuthoritativeValues(envelope.data, switches) },
    canonicalData: state.canonicalData ?? canonicalDataOf(envelope, state.sha256),
  });
}
