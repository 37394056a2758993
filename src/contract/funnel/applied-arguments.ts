import { canonicalJson, isPlainObject } from '../canonical-json.js';
import { inspectJson } from '../json-shape.js';
import type { Redaction } from '../redaction.js';
import type { FunnelState } from './funnel-state.js';
import { MAX_ARGUMENT_DEPTH } from './input-steps.js';

/**
 * Parameter fidelity (seed 003: "return the arguments actually applied"): the arguments that ran, redacted, shown
 * only when they differ from what the model sent — on success and on failure alike, once the input layer accepted
 * them (before that nothing was applied). They are what the handler reported applying (`appliedArguments`), else
 * the input schema's output: defaults, trims and transforms made visible. A transform's non-JSON output (a `Date`,
 * a `URL`) is shown in its JSON form; a value without a faithful JSON form (a `Map`) is not shown at all.
 */
export function appliedArguments(state: FunnelState, log: Redaction[]): unknown {
  if (state.verdicts.input?.outcome !== 'passed') return undefined;
  const reported = state.envelope?.appliedArguments;
  const applied = jsonForm(reported === undefined ? state.arguments : reported);
  if (applied === undefined) return undefined;
  try {
    if (canonicalJson(applied) === canonicalJson(state.sentArguments)) return undefined;
  } catch {
    return undefined;
  }
  return state.redactor.value(applied, '/applied_arguments', log);
}

/** `value` as plain JSON: itself when it already is, its `toJSON` form when every non-plain part has one. */
function jsonForm(value: unknown): unknown {
  if (inspectJson(value, MAX_ARGUMENT_DEPTH).ok) return value;
  let text: string | undefined;
  try {
    // `toJSON` has already run when the replacer sees a member, so anything still non-plain has no JSON form.
    text = JSON.stringify(value, (_key, member: unknown) => {
      if (member !== null && typeof member === 'object' && !Array.isArray(member) && !isPlainObject(member))
        throw new Error('no JSON form');
      return member;
    });
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const parsed: unknown = JSON.parse(text);
  return inspectJson(parsed, MAX_ARGUMENT_DEPTH).ok ? parsed : undefined;
}
