import type { LayerOutcome, ValidationLayer } from '../audit-record.js';
import type { CallFailure } from '../call-failure.js';
import { wellFormedPrefix } from '../truncation.js';
import type { FunnelState } from './funnel-state.js';

/**
 * What one step of the funnel concluded. `pass` and `skip` go on to the next step; `fail` ends the call with
 * `failure`; `finish` ends it early with the result the step put in `state.shown` (an accepted job: there is no
 * output to check yet). The state is returned in every case: a failure is projected from what the funnel knew
 * when it failed.
 */
export type StepResult =
  | { readonly kind: 'pass'; readonly state: FunnelState }
  | { readonly kind: 'skip'; readonly state: FunnelState }
  | { readonly kind: 'fail'; readonly state: FunnelState; readonly failure: CallFailure }
  | { readonly kind: 'finish'; readonly state: FunnelState };

/** One step of the funnel: a function of the state so far. */
export type Step = (state: FunnelState) => StepResult | Promise<StepResult>;

type Changes = Partial<Omit<FunnelState, 'verdicts'>>;

/** The layer passed under `rule`. */
export function passLayer(state: FunnelState, layer: ValidationLayer, rule: string, changes: Changes = {}): StepResult {
  return {
    kind: 'pass',
    state: withVerdict({ ...state, ...changes }, { layer, outcome: 'passed', rule_version: rule }),
  };
}

/** The layer let the call through under `rule` with a warning the model sees (stale data in `warn` mode, say). */
export function warnLayer(
  state: FunnelState,
  layer: ValidationLayer,
  rule: string,
  reason: string,
  changes: Changes = {},
): StepResult {
  const verdict = { layer, outcome: 'warned' as const, rule_version: rule, reason: wellFormedPrefix(reason, 1000) };
  return { kind: 'pass', state: withVerdict({ ...state, ...changes }, verdict) };
}

/** The layer does not apply to this call (a read has no side effect; a tool without invariants has no semantics). */
export function skipLayer(
  state: FunnelState,
  layer: ValidationLayer,
  reason: string,
  changes: Changes = {},
): StepResult {
  return {
    kind: 'skip',
    state: withVerdict({ ...state, ...changes }, { layer, outcome: 'skipped', rule_version: 'n/a', reason }),
  };
}

/** The layer failed under `rule`; `reason` (bounded) goes to the audit, `failure` decides what the model sees. */
export function failLayer(
  state: FunnelState,
  layer: ValidationLayer,
  rule: string,
  failure: CallFailure,
  reason: string,
  changes: Changes = {},
): StepResult {
  const verdict = { layer, outcome: 'failed' as const, rule_version: rule, reason: wellFormedPrefix(reason, 1000) };
  return { kind: 'fail', state: withVerdict({ ...state, ...changes }, verdict), failure };
}

/** A check inside a layer passed; the layer's verdict is recorded by the step that completes it. */
export function proceed(state: FunnelState, changes: Changes = {}): StepResult {
  return { kind: 'pass', state: { ...state, ...changes } };
}

/** The call ends with `failure` without a layer verdict (what the handler threw is not a validation outcome). */
export function stop(state: FunnelState, failure: CallFailure): StepResult {
  return { kind: 'fail', state, failure };
}

/** Records a layer's verdict (each layer decides at most once per call). */
export function withVerdict(state: FunnelState, verdict: LayerOutcome): FunnelState {
  return { ...state, verdicts: { ...state.verdicts, [verdict.layer]: verdict } };
}
