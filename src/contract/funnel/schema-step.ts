import type { ZodType } from 'zod';
import { findUndeclaredKeys } from '../exact-output.js';
import { describeIssues, guardedParse } from '../guarded-parse.js';
import { keepsEveryKey } from '../key-keeping-schema.js';
import { contractFailure } from './contract-failure.js';
import { envelopeOf, type FunnelState } from './funnel-state.js';
import { failLayer, passLayer, skipLayer, type StepResult } from './step.js';

/**
 * Schema layer: the tool's output schema, exactly — a key the schema would strip is a violation, at any depth. A
 * schema that throws on this output (a throwing refinement or transform) is a violation too, never a crash.
 */
export function checkOutputSchema(state: FunnelState): StepResult {
  const { data: raw } = envelopeOf(state);
  if (state.overRawSize !== null) return skipLayer(state, 'schema', state.overRawSize, { data: raw });
  const rule = `output@${state.tool.revisions.output}`;
  const schema = state.tool.output as ZodType;
  const parsed = guardedParse(schema, raw);
  if (!parsed.success) {
    const issues = describeIssues(parsed.issues);
    const detail = parsed.thrown === undefined ? { issues } : { issues, thrown: parsed.thrown };
    return failLayer(state, 'schema', rule, contractFailure('schema', detail), issues.join('; '));
  }
  // A schema proven to keep every key has already refused any undeclared one: the walk would find nothing.
  const undeclared = keepsEveryKey(schema) ? [] : findUndeclaredKeys(raw, parsed.data);
  if (undeclared.length > 0) {
    return failLayer(
      state,
      'schema',
      rule,
      contractFailure('schema', { undeclared }),
      `undeclared keys: ${undeclared.join(', ')}`,
    );
  }
  return passLayer(state, 'schema', rule, { data: parsed.data });
}
