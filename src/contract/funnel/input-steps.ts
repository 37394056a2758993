import type { ZodType } from 'zod';
import { catalogFailure } from '../call-failure.js';
import { describeIssues, guardedParse } from '../guarded-parse.js';
import { inspectJson } from '../json-shape.js';
import { wellFormedPrefix } from '../truncation.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, passLayer, proceed, type StepResult } from './step.js';

/** Deepest argument object accepted before the input schema runs. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Input layer, part one: the arguments are plain, bounded JSON before the input schema (recursive code) sees them. */
export function gateArguments(state: FunnelState): StepResult {
  const shape = inspectJson(state.sentArguments, MAX_ARGUMENT_DEPTH);
  if (!shape.ok) {
    const failure = catalogFailure('INVALID_ARGUMENTS', 'input', shape);
    return failLayer(state, 'input', inputRule(state), failure, `${shape.reason} at '${shape.path}'`, { digestArguments: { unrepresentable: shape.reason } });
  }
  return proceed(state, { digestArguments: state.sentArguments });
}

/**
 * Input layer, part two: the tool's input schema. A schema that throws on these arguments (a transform such as
 * `new URL(u)` given `'not a url'`) rejects them like any other issue: the arguments are the model's to correct.
 */
export function parseArguments(state: FunnelState): StepResult {
  const parsed = guardedParse(state.tool.input as ZodType, state.sentArguments);
  if (!parsed.success) {
    const issues = describeIssues(parsed.issues);
    const message = wellFormedPrefix(`The arguments do not match the tool input schema: ${issues.join(', ')}`, 500);
    const detail = parsed.thrown === undefined ? { issues } : { issues, thrown: parsed.thrown };
    return failLayer(state, 'input', inputRule(state), catalogFailure('INVALID_ARGUMENTS', 'input', detail, { message }), issues.join('; '));
  }
  // The request digest is over the arguments that will run; a schema whose output is not JSON keeps the raw ones.
  const digestArguments = inspectJson(parsed.data, MAX_ARGUMENT_DEPTH).ok ? parsed.data : state.digestArguments;
  return passLayer(state, 'input', inputRule(state), { arguments: parsed.data, digestArguments });
}

/**
 * What the request digest of a call that never reached the input layer is taken over (an unknown tool, a refused
 * approval): the arguments as sent when they are JSON, else a note of why they are not.
 */
export function digestArgumentsOf(rawArgs: unknown): unknown {
  const shape = inspectJson(rawArgs, MAX_ARGUMENT_DEPTH);
  return shape.ok ? rawArgs : { unrepresentable: shape.reason };
}

function inputRule(state: FunnelState): string {
  return `input@${state.tool.revisions.input}`;
}
