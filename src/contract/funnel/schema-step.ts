import type { ZodType } from 'zod';
import { findUndeclaredKeys } from '../exact-output.js';
import { contractFailure } from './contract-failure.js';
import { envelopeOf, type FunnelState } from './funnel-state.js';
import { formatIssuePath } from './issue-path.js';
import { failLayer, passLayer, type StepResult } from './step.js';

/** Schema layer: the tool's output schema, exactly — a key the schema would strip is a violation, at any depth. */
export function checkOutputSchema(state: FunnelState): StepResult {
  const { data: raw } = envelopeOf(state);
  const rule = `output@${state.tool.revisions.output}`;
  const parsed = (state.tool.output as ZodType).safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)} (${issue.code})`);
    return failLayer(state, 'schema', rule, contractFailure('schema', { issues }), issues.join('; '));
  }
  const undeclared = findUndeclaredKeys(raw, parsed.data);
  if (undeclared.length > 0) {
    return failLayer(state, 'schema', rule, contractFailure('schema', { undeclared }), `undeclared keys: ${undeclared.join(', ')}`);
  }
  return passLayer(state, 'schema', rule, { data: parsed.data });
}
