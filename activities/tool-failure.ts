import { ApplicationFailure } from '@temporalio/common';
import { ERROR_CATALOG, isCatalogCode, type CatalogCode } from '../src/contract/error-catalog.js';
import { isToolError } from '../src/contract/tool-error.js';
import type { ModelResult } from '../src/contract/model-result.js';

/** Failure `type` of everything this package throws that is not a catalog code (a defect, a broken input). */
export const INTERNAL_FAILURE_TYPE: CatalogCode = 'TOOL_ERROR';

/**
 * The one translator from this package's errors to Temporal failures. The failure `type` is always a catalog code
 * (workflow code matches on it, never on message text); retryability comes from the catalog, so Temporal never
 * retries what the catalog calls non-retryable. A model result, when there is one, rides along as the only detail;
 * the thrown value itself never reaches history (its text may carry secrets).
 */
export function toApplicationFailure(error: unknown, modelResult: ModelResult | null = null): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const code = isToolError(error) && isCatalogCode(error.code) ? error.code : INTERNAL_FAILURE_TYPE;
  const retryable = isCatalogCode(code) ? ERROR_CATALOG[code].retryable : false;
  const retryAfterMs = isToolError(error) ? error.retryAfterMs : modelResult?.error?.retry_after_ms;
  const message = isCatalogCode(code) ? ERROR_CATALOG[code].message : 'internal error';
  return ApplicationFailure.create({
    type: code,
    message,
    nonRetryable: !retryable,
    details: modelResult === null ? [] : [modelResult],
    ...(retryAfterMs !== undefined && retryable ? { nextRetryDelay: retryAfterMs } : {}),
  });
}

/** A retryable catalog failure of a read, carrying the model result to return once retries run out. */
export function retryableReadFailure(modelResult: ModelResult): ApplicationFailure {
  const code = modelResult.error?.code ?? INTERNAL_FAILURE_TYPE;
  return ApplicationFailure.create({
    type: code,
    message: modelResult.error?.message ?? 'retryable failure',
    nonRetryable: false,
    details: [modelResult],
    ...(modelResult.error?.retry_after_ms !== undefined ? { nextRetryDelay: modelResult.error.retry_after_ms } : {}),
  });
}
