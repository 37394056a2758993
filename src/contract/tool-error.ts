import type { EvidenceInput, RawResponse } from './tool-handler.js';
import { isCatalogCode, type CatalogCode } from './error-catalog.js';

/** JSON-safe detail attached to a {@link ToolError}; it goes to the protected audit, never to the model. */
export type ToolErrorDetails = Readonly<Record<string, unknown>>;

/**
 * The one error class of the package. Tool handlers throw it with a catalog code or a business code the tool
 * declared; the message shown to the model comes from the catalog (or the declaration), never from `details`.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly code: string;
  readonly details: ToolErrorDetails;
  /** For `RATE_LIMITED` and other `retry_after` codes: how long to wait, when the upstream said so. */
  readonly retryAfterMs: number | undefined;
  /** What the refusal rests on, shown to the model with the error (see {@link ToolErrorOptions.evidence}). */
  readonly evidence: readonly EvidenceInput[];
  /** The upstream response that was refused, so the audit can record its digest (see {@link ToolErrorOptions}). */
  readonly rawResponse: RawResponse | undefined;
  /** The versioned rule that found the failure, recorded as the layer's rule version. */
  readonly rule: string | undefined;

  constructor(code: CatalogCode | (string & {}), details: ToolErrorDetails = {}, options: ToolErrorOptions = {}) {
    super(code, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = details;
    this.retryAfterMs = options.retryAfterMs;
    this.evidence = options.evidence ?? [];
    this.rawResponse = options.rawResponse;
    this.rule = options.rule;
  }

  /** True when the code is in the fixed catalog (as opposed to a tool's business code). */
  get isCatalogCode(): boolean {
    return isCatalogCode(this.code);
  }
}

/** Optional parts of a {@link ToolError}. */
export interface ToolErrorOptions {
  readonly cause?: unknown;
  readonly retryAfterMs?: number;
  /**
   * Evidence for the error (seed 000's error envelope: a refund refused by policy cites the policy). A failed result
   * has no data, so `supports` are JSON Pointers into the model-visible `error` (`/code`, `/message`). Kept only
   * with a catalog or declared business code; unlike `details`, it reaches the model (redacted like any evidence).
   */
  readonly evidence?: readonly EvidenceInput[];
  /** The raw upstream response a handler refused (`readHttpJson` passes it): its SHA-256 goes to the audit. */
  readonly rawResponse?: RawResponse;
  /** The versioned rule that refused it, e.g. `http-json@1` (`readHttpJson`). */
  readonly rule?: string;
}

/** Recognizes a ToolError even across module copies (duck-typed on name and code). */
export function isToolError(error: unknown): error is ToolError {
  return (
    error instanceof ToolError ||
    (error instanceof Error && error.name === 'ToolError' && typeof (error as { code?: unknown }).code === 'string')
  );
}
