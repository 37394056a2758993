import type { ModelResult } from '../index.js';

/**
 * One line about a model result, as an operator reads it: status or error code, and what is notable — the job an
 * accepted call started, items cut
 * by the budget and where to continue, untrusted text isolated, how a write's outcome was established, evidence.
 */
export function describeResult(result: ModelResult): string {
  const parts: string[] = [result.error === null ? result.status : `${result.status} ${result.error.code}`];
  if (result.job !== undefined) parts.push(`job ${result.job.handle}`);
  const { completeness } = result;
  if (completeness.state === 'truncated') {
    const of = completeness.available_items === null ? '' : ` of ${completeness.available_items}`;
    const next =
      completeness.next === null ? '' : `, continue at ${completeness.next.type} ${String(completeness.next.value)}`;
    parts.push(`${completeness.returned_items}${of} items${next}`);
  } else if (completeness.returned_items > 1) {
    parts.push(`${completeness.returned_items} items`);
  }
  if (result.untrusted_content.length > 0) {
    const flagged = result.untrusted_content.filter((item) => item.instructional).length;
    parts.push(
      `${result.untrusted_content.length} untrusted text(s) isolated${flagged > 0 ? `, ${flagged} flagged as instructions` : ''}`,
    );
  }
  if (result.execution.outcome !== 'none') parts.push(`${result.execution.outcome} (${result.execution.delivery})`);
  if (result.evidence.length > 0) parts.push(`evidence ${result.evidence.map((item) => item.evidence_id).join(' ')}`);
  return parts.join(' · ');
}

/** Compact JSON for a progress line (arguments are secret-free previews or the model's own arguments). */
export function compactJson(value: unknown, max = 100): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
