import type { Principal } from './tool-handler.js';
import type { AnyToolImplementation, ToolBudget } from './tool-spec.js';
import { Redactor } from './redaction.js';

/**
 * How many times a tool's text budget one string is scanned for secrets. Redaction runs before the budget cuts text
 * (a cut through a secret leaves a prefix no rule recognises), so it must read more than the budget shows: hidden
 * secrets shrink to a marker, and the fallback limits that fit a result into its bytes are shorter still.
 */
export const SCAN_CAP_FACTOR = 4;

/**
 * Fewest characters scanned, whatever the text budget: no less than the longest bounded string a model sees besides
 * `data` (an evidence locator, 2,048), so a small `maxTextChars` never cuts labels and locators shorter than that.
 */
export const MIN_SCAN_CHARS = 4096;

/** The characters of one string that redaction reads and keeps; the rest is cut unread (see `Redactor.text`). */
export function scanCap(budget: ToolBudget): number {
  return Math.max(SCAN_CAP_FACTOR * budget.maxTextChars, MIN_SCAN_CHARS);
}

/** The values of one call that redaction hides besides the secret catalog. */
export interface RedactedCall {
  readonly idempotencyKey: string;
  readonly operationId: string;
  readonly principal: Principal;
}

/**
 * The redactor for everything one call shows — its model result, its approval preview and summary, its
 * reconciliation reasons: the tool's sensitive and public field names, the call's ids and caller as protected
 * values, and the tool's scan cap (or `maxScanChars`, for text with a tighter bound of its own).
 */
export function callRedactor(
  tool: AnyToolImplementation,
  call: RedactedCall,
  maxScanChars = scanCap(tool.budget),
): Redactor {
  return new Redactor({
    sensitiveFields: tool.sensitiveFields,
    publicFields: tool.publicFields,
    protectedSubstrings: [call.idempotencyKey, call.operationId],
    protectedExact: [call.principal.tenant, call.principal.subject],
    maxScanChars,
    ...(tool.allowedUrlDomains === undefined ? {} : { allowedUrlDomains: tool.allowedUrlDomains }),
  });
}
