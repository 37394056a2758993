import { ERROR_CATALOG, isCatalogCode } from './error-catalog.js';

/** The parts of a model result whose agreement these rules check. */
export interface OutcomeParts {
  readonly status: string;
  readonly error: {
    readonly code: string;
    readonly recovery: string;
    readonly retry_after_ms?: number | undefined;
  } | null;
  readonly execution: { readonly outcome: string; readonly receipt: unknown };
}

/**
 * The ways a result can contradict itself about its side effect and still pass every field's own rule (seeds 000
 * and 001: one result, one story), one line each; empty when it agrees with itself:
 * - a catalog code fixes what it says of the side effect: one that did not start (`INVALID_ARGUMENTS`,
 *   `NOT_COMMITTED`, …) has outcome `not_started`, and `OUTCOME_UNKNOWN` has outcome `unknown`;
 * - a wait (`retry_after_ms`) belongs only to an error whose recovery is to wait and retry;
 * - a committed side effect carries its receipt (`execution.receipt`; its id may be withheld, never the receipt);
 * - an unknown outcome is never reported `failed` or `succeeded`, and a committed one never `failed`: the model would
 *   repeat a write that may have happened, or did.
 * `modelResultSchema` refuses a result with any of them, so adapters and stores that trust the schema trust only
 * results that tell one story.
 */
export function outcomeContradictions(result: OutcomeParts): string[] {
  const problems: string[] = [];
  const { status, error, execution } = result;
  if (error !== null && isCatalogCode(error.code)) {
    const said = ERROR_CATALOG[error.code].outcome;
    if (said !== 'as_executed' && execution.outcome !== said)
      problems.push(`${error.code} says the outcome is ${said}, not ${execution.outcome}`);
  }
  if (error?.retry_after_ms !== undefined && error.recovery !== 'retry_after')
    problems.push(`retry_after_ms belongs to an error whose recovery is retry_after, not ${error.recovery}`);
  if (execution.outcome === 'committed' && execution.receipt === null)
    problems.push('a committed side effect carries its receipt');
  if (execution.outcome === 'unknown' && status !== 'unknown' && status !== 'accepted')
    problems.push(`an unknown outcome is reported unknown (or accepted), not ${status}`);
  if (execution.outcome === 'committed' && status === 'failed')
    problems.push('a committed side effect is never reported failed');
  return problems;
}
