import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { ModelResult } from '../src/contract/model-result.js';
import { MODEL_RESULT_SCHEMA_VERSION } from '../src/contract/model-result-version.js';

/** The model result an activity attached to its failure (catalogued failures carry it as their only detail). */
export function carriedResult(error: unknown): ModelResult | null {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return null;
  const detail: unknown = error.cause.details?.[0];
  if (
    typeof detail !== 'object' ||
    detail === null ||
    (detail as { schema_version?: unknown }).schema_version !== MODEL_RESULT_SCHEMA_VERSION
  )
    return null;
  return detail as ModelResult;
}

/**
 * Why an activity failed, as one string: the failure `type` the package's translator set (a catalog code),
 * `TIMEOUT_<timeout type>` for a timeout, else the failure's class name. Never the message (it may carry secrets).
 */
export function failureType(error: unknown): string {
  if (error instanceof ActivityFailure) {
    if (error.cause instanceof ApplicationFailure) return error.cause.type ?? 'ApplicationFailure';
    if (error.cause instanceof TimeoutFailure) return `TIMEOUT_${error.cause.timeoutType ?? 'UNKNOWN'}`;
    return error.cause?.name ?? 'ActivityFailure';
  }
  return error instanceof Error ? error.name : 'unknown';
}
