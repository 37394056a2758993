import type { ToolOutput } from '../tool-handler.js';
import type { BuiltEvidence } from '../evidence.js';
import { parsePointer } from '../json-pointer.js';
import type { Conflict, Continuation, UntrustedContent } from '../model-result.js';
import type { Redaction } from '../redaction.js';
import { buildUntrustedContent } from '../untrusted-content.js';
import { appliedArguments } from './applied-arguments.js';
import type { CheckedEvidence, FunnelState } from './funnel-state.js';
import { scrubEvidence } from './scrubbed-evidence.js';

/** Everything besides `data` that a successful model result shows from the handler, redacted. */
export interface ScrubbedParts {
  readonly evidence: readonly BuiltEvidence[];
  readonly untrusted: readonly UntrustedContent[];
  readonly conflicts: readonly Conflict[];
  readonly next: Continuation | null;
  /** `undefined` when the arguments that ran are the ones the model sent (or cannot be shown). */
  readonly appliedArguments: unknown;
}

/**
 * Every handler-supplied string a model sees passes the redactor here, not only `data`: labels, evidence, untrusted
 * sources, conflict values and sources, cursors — any of them can echo the idempotency key, the operation id or a
 * credential. Each removal is appended to `log`, in the order the parts are listed.
 */
export function scrubHandlerParts(
  state: FunnelState,
  output: ToolOutput<unknown>,
  checked: CheckedEvidence,
  log: Redaction[],
): ScrubbedParts {
  const { redactor } = state;
  const scrub = (text: string, path: string) => redactor.text(text, path, log);
  const evidence = scrubEvidence(state, checked.evidence, log);
  const untrusted = buildUntrustedContent(output.untrusted ?? []).map((item, i) => ({
    ...item,
    text: scrub(item.text, `/untrusted_content/${i}/text`),
    source: scrub(item.source, `/untrusted_content/${i}/source`),
  }));
  // A conflict on a sensitive field would show the very values redaction removes from `data`: it is dropped.
  const conflicts = checked.conflicts.flatMap((conflict, i) => {
    if ((parsePointer(conflict.field) ?? []).some((token) => redactor.isSensitiveName(token))) {
      log.push({ path: `/conflicts/${i}`, reason: 'sensitive_field' });
      return [];
    }
    const values = conflict.values.map((v, j) => ({
      value: redactor.value(v.value, `/conflicts/${i}/values/${j}/value`, log) as typeof v.value,
      source: scrub(v.source, `/conflicts/${i}/values/${j}/source`),
    }));
    return [{ ...conflict, values }];
  });
  const next =
    output.next?.type === 'cursor' && typeof output.next.value === 'string'
      ? { ...output.next, value: scrub(output.next.value, '/completeness/next/value') }
      : (output.next ?? null);
  return { evidence, untrusted, conflicts, next, appliedArguments: appliedArguments(state, log) };
}
