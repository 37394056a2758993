import { catalogFailure, describeThrown } from '../call-failure.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, passLayer, skipLayer, type StepResult } from './step.js';

/** Semantics layer: the tool's versioned invariants, in declaration order; the first that does not hold fails. */
export function checkInvariants(state: FunnelState): StepResult {
  const { invariants } = state.tool;
  if (state.overRawSize !== null) return skipLayer(state, 'semantics', state.overRawSize);
  for (const invariant of invariants) {
    const rule = invariantRule(invariant);
    let verdict: boolean | string;
    try {
      verdict = invariant.check(state.data, state.arguments);
    } catch (error) {
      verdict = `invariant threw: ${describeThrown(error)['exception'] as string}`;
    }
    if (verdict !== true) {
      const reason = typeof verdict === 'string' ? verdict : 'returned false';
      const failure = catalogFailure('INVARIANT_VIOLATION', 'semantics', { invariant: rule, reason });
      // An invariant that opted in shows its own reason (a thrown check's description is ours, not its finding).
      const shown =
        invariant.visibleReason === true && typeof verdict === 'string'
          ? { findings: [{ rule, reason: verdict }] }
          : {};
      return failLayer(state, 'semantics', rule, { ...failure, ...shown }, reason);
    }
  }
  if (invariants.length === 0) return skipLayer(state, 'semantics', 'no invariants declared');
  return passLayer(state, 'semantics', invariants.map(invariantRule).join(','));
}

function invariantRule(invariant: { readonly id: string; readonly version: string | number }): string {
  return `invariant:${invariant.id}@${invariant.version}`;
}
