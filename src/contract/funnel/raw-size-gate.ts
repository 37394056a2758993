import type { ToolBudget } from '../tool-spec.js';
import type { JsonSize } from '../json-shape.js';

/**
 * Values per byte of budget beyond which a result is not validated. A shown value takes at least two bytes (itself
 * and a separator), so at most `maxBytes / 2` values can ever be shown; a result with 16 times that many (524,288
 * values at the default 64 KB) would be cut to under a sixteenth before the model saw it.
 */
export const MAX_VALUES_PER_BUDGET_BYTE = 8;

/** Fewest bytes one object member serializes to (`"":0`): an object with more members than budget / 4 cannot fit. */
const MIN_MEMBER_BYTES = 4;

/**
 * Why a result is too big to validate, or `null`. The per-value passes (schema, exact keys, invariants, redaction,
 * fitting) are what such a result makes expensive, and what the gate skips; the per-byte pass (canonical JSON and
 * SHA-256 for the raw digest and the artifact) is paid either way. Two cases, both measured by the shape gate:
 * - far more values than could ever be shown (see {@link MAX_VALUES_PER_BUDGET_BYTE});
 * - an object outside any list wider than the budget: objects are never cut (only lists and strings are), so it
 *   could only end as no data — the result those passes would reach after walking every member several times.
 */
export function overRawSizeGate(size: JsonSize, budget: ToolBudget): string | null {
  if (size.values > MAX_VALUES_PER_BUDGET_BYTE * budget.maxBytes) {
    return `raw size gate: ${size.values} values, over ${MAX_VALUES_PER_BUDGET_BYTE} per byte of the ${budget.maxBytes}-byte budget`;
  }
  if (size.widestObjectOutsideLists * MIN_MEMBER_BYTES > budget.maxBytes) {
    return `raw size gate: an object with ${size.widestObjectOutsideLists} members cannot fit the ${budget.maxBytes}-byte budget`;
  }
  return null;
}
