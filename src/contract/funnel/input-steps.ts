import type { ZodType } from 'zod';
import { catalogFailure } from '../call-failure.js';
import type { AnyToolImplementation } from '../tool-spec.js';
import { describeIssues, guardedParse } from '../guarded-parse.js';
import { inspectJson } from '../json-shape.js';
import { utf8ByteLength, wellFormedPrefix } from '../truncation.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, passLayer, proceed, type StepResult } from './step.js';

/** Deepest argument object accepted before the input schema runs. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Input layer, part one: the arguments are plain, bounded JSON before the input schema (recursive code) sees them. */
export function gateArguments(state: FunnelState): StepResult {
  const shape = inspectJson(state.sentArguments, MAX_ARGUMENT_DEPTH);
  if (!shape.ok) {
    const failure = catalogFailure('INVALID_ARGUMENTS', 'input', shape);
    return failLayer(state, 'input', inputRule(state), failure, `${shape.reason} at '${shape.path}'`, {
      digestArguments: { unrepresentable: shape.reason },
    });
  }
  // Plain JSON without cycles by now, so it serializes; measured as it travels (JSON in Temporal payloads).
  const bytes = utf8ByteLength(JSON.stringify(state.sentArguments));
  const maxBytes = state.tool.maxArgumentBytes;
  if (bytes > maxBytes) {
    const failure = catalogFailure('INVALID_ARGUMENTS', 'input', {
      reason: 'arguments_too_large',
      bytes,
      max_bytes: maxBytes,
    });
    return failLayer(state, 'input', inputRule(state), failure, `arguments of ${bytes} bytes exceed ${maxBytes}`, {
      digestArguments: { unrepresentable: 'too_large', bytes },
    });
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
    return failLayer(
      state,
      'input',
      inputRule(state),
      catalogFailure('INVALID_ARGUMENTS', 'input', detail, { message }),
      issues.join('; '),
    );
  }
  return passLayer(state, 'input', inputRule(state), {
    arguments: parsed.data,
    digestArguments: parsedDigestArguments(parsed.data, state.digestArguments),
  });
}

/** The model's arguments as the input layer judges them, without the audit's detail of why they failed. */
export type CheckedArguments =
  | { readonly ok: true; readonly arguments: unknown; readonly digestArguments: unknown }
  | { readonly ok: false; readonly digestArguments: unknown };

/**
 * The input layer's verdict for code outside the funnel that must agree with it before the call runs (the Temporal
 * side's argument check and the ledger's request digest): the same shape gate, the same guarded parse, the same
 * arguments digested. Never throws for anything the arguments or the tool's schema do.
 */
export function checkArguments(tool: AnyToolImplementation, rawArgs: unknown): CheckedArguments {
  if (!inspectJson(rawArgs, MAX_ARGUMENT_DEPTH).ok) return { ok: false, digestArguments: digestArgumentsOf(rawArgs) };
  const parsed = guardedParse(tool.input as ZodType, rawArgs);
  if (!parsed.success) return { ok: false, digestArguments: rawArgs };
  return { ok: true, arguments: parsed.data, digestArguments: parsedDigestArguments(parsed.data, rawArgs) };
}

/** The request digest is over the arguments that will run; a schema whose output is not JSON keeps the raw ones. */
function parsedDigestArguments(parsed: unknown, raw: unknown): unknown {
  return inspectJson(parsed, MAX_ARGUMENT_DEPTH).ok ? parsed : raw;
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
