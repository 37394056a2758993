import { declaredRecovery } from './catalog-rule.js';
import type { EvidenceInput } from './tool-handler.js';
import type { AnyToolImplementation } from './tool-spec.js';
import { ERROR_CATALOG, isCatalogCode, type CatalogCode } from './error-catalog.js';
import type { ExecutionOutcome, ModelError, Receipt, ToolStatus } from './model-result.js';
import { MAX_DETAIL_TEXT_CHARS } from './funnel/audit-bounds.js';
import { SCAN_LOOKAHEAD } from './redaction/detector.js';
import { isToolError } from './tool-error.js';
import type { ErrorLayer } from './validation-layers.js';
import type { VerificationFinding } from './verification-findings.js';

/** A failure found somewhere in the funnel: what the model will see, and what only the audit keeps. */
export interface CallFailure {
  readonly error: ModelError;
  /** The layer that decided; the model sees it as `error.layer`, the audit as `error_detail.layer`. */
  readonly layer: ErrorLayer;
  /** Internal detail (issues, thrown codes, exception class). JSON-safe; audit only. */
  readonly detail: unknown;
  /** Only more input can lift it (`APPROVAL_REQUIRED`, a business code declared `needs_input`): `needs_input`. */
  readonly needsInput?: boolean;
  /** What the tool cited for its error; pointers into the model-visible `error` (see `failureEvidence`). */
  readonly evidence?: readonly EvidenceInput[];
  /** Findings the model may use to repair the next call (see `verification-findings.ts`); shown redacted and bounded. */
  readonly findings?: readonly VerificationFinding[];
}

/** A failure with a catalog code; `message` overrides the catalog text only with another safe text. */
export function catalogFailure(
  code: CatalogCode,
  layer: ErrorLayer,
  detail: unknown,
  extra: { message?: string; retryAfterMs?: number | undefined } = {},
): CallFailure {
  const entry = ERROR_CATALOG[code];
  const error: ModelError = {
    code,
    category: entry.category,
    message: extra.message ?? entry.message,
    retryable: entry.retryable,
    recovery: entry.recovery,
    layer,
  };
  // Only an error the model is told to wait out carries the wait: `retry_after_ms` on INVALID_ARGUMENTS would
  // contradict its recovery (see outcome-consistency.ts).
  if (
    entry.recovery === 'retry_after' &&
    extra.retryAfterMs !== undefined &&
    Number.isFinite(extra.retryAfterMs) &&
    extra.retryAfterMs >= 0
  ) {
    // Capped to a safe integer: an upstream `Retry-After: 99999999999999` must stay RATE_LIMITED, not fail the schema.
    error.retry_after_ms = Math.min(Math.round(extra.retryAfterMs), Number.MAX_SAFE_INTEGER);
  }
  return { error, layer, detail, ...(code === 'APPROVAL_REQUIRED' ? { needsInput: true } : {}) };
}

/**
 * Maps whatever a handler threw to a failure. Only codes from the catalog or the tool's own declaration pass
 * through; any other throw is `TOOL_ERROR`, and its message stays in the audit (the model gets the catalog text).
 */
export function failureFromThrown(tool: AnyToolImplementation, thrown: unknown): CallFailure {
  if (isToolError(thrown)) {
    const detail = { thrown_code: thrown.code, details: jsonSafe(thrown.details) };
    // A ToolError from another copy of the package may predate `evidence`.
    const cited = Array.isArray(thrown.evidence) && thrown.evidence.length > 0 ? { evidence: thrown.evidence } : {};
    if (isCatalogCode(thrown.code)) {
      return { ...catalogFailure(thrown.code, 'execution', detail, { retryAfterMs: thrown.retryAfterMs }), ...cited };
    }
    const declared = Object.hasOwn(tool.businessErrors ?? {}, thrown.code)
      ? tool.businessErrors?.[thrown.code]
      : undefined;
    if (declared) {
      const entry = ERROR_CATALOG.BUSINESS_RULE;
      const needsInput = declared.status === 'needs_input';
      return {
        error: {
          code: thrown.code,
          category: entry.category,
          message: declared.message,
          retryable: false,
          recovery: declaredRecovery(declared),
          layer: 'execution',
        },
        layer: 'execution',
        detail,
        ...(needsInput ? { needsInput } : {}),
        ...cited,
      };
    }
    return catalogFailure('TOOL_ERROR', 'execution', { ...detail, reason: 'undeclared error code' });
  }
  return catalogFailure('TOOL_ERROR', 'execution', describeThrown(thrown));
}

/** How a failure settles into status and execution outcome, given what is known about the side effect. */
export interface SettledFailure {
  readonly status: ToolStatus;
  readonly outcome: ExecutionOutcome;
  readonly error: ModelError;
  /** Set when the model-visible code was replaced (a write whose fate is unknown); the original goes to the audit. */
  readonly replacedCode?: string;
}

/**
 * Applies the side-effect rules (SPEC §4) to a failure:
 * - a committed write keeps its receipt and is `partial`, never `failed` (a retry would duplicate it);
 * - a write that ran without a receipt and failed for any reason but a declared "did not run" is `OUTCOME_UNKNOWN`;
 * - a failure only more input can lift (`APPROVAL_REQUIRED`, a `needs_input` business code) that did not run asks
 *   for input; everything else that did not run is `failed`.
 */
export function settleFailure(
  failure: CallFailure,
  tool: AnyToolImplementation,
  handlerRan: boolean,
  receipt: Receipt | null,
): SettledFailure {
  const catalogOutcome = isCatalogCode(failure.error.code) ? ERROR_CATALOG[failure.error.code].outcome : 'not_started';
  if (receipt !== null) return { status: 'partial', outcome: 'committed', error: failure.error };
  // `OUTCOME_UNKNOWN` says the outcome is unknown whoever reports it, even before this attempt's handler ran (a key
  // claimed by an attempt that never settled, a person's resolution being recorded).
  if (catalogOutcome === 'unknown') return { status: 'unknown', outcome: 'unknown', error: failure.error };
  if (!handlerRan || catalogOutcome === 'not_started') {
    const status: ToolStatus = failure.needsInput === true ? 'needs_input' : 'failed';
    return { status, outcome: 'not_started', error: failure.error };
  }
  if (tool.effect === 'read') return { status: 'failed', outcome: 'none', error: failure.error };
  // The authoritative system contradicted the operation: reported as such (a person decides). Any other failure of a
  // write that ran — a broken output, an unexpected throw, even though they too ask for a person — says nothing about
  // whether it took effect: OUTCOME_UNKNOWN, which reconciliation settles.
  if (failure.error.category === 'conflict') return { status: 'unknown', outcome: 'unknown', error: failure.error };
  return {
    status: 'unknown',
    outcome: 'unknown',
    error: catalogFailure('OUTCOME_UNKNOWN', failure.layer, null).error,
    replacedCode: failure.error.code,
  };
}

/**
 * Audit-safe description of an arbitrary thrown value. Never throws: it runs inside the guards that keep a hostile
 * throw (a proxy, a getter on `message`) from escaping, so anything it cannot read is described as unprintable. The
 * message is kept {@link SCAN_LOOKAHEAD} characters past what an audit shows: the audit redacts before it cuts (see
 * `MAX_DETAIL_TEXT_CHARS`), so a secret straddling that cut is still recognised whole and hidden.
 */
export function describeThrown(thrown: unknown): Record<string, unknown> {
  try {
    if (thrown instanceof Error)
      return { exception: safeString(thrown.name), message: safeString(thrown.message).slice(0, KEPT_MESSAGE_CHARS) };
  } catch {
    // An Error whose fields cannot be read: described below like any other value.
  }
  return { exception: typeof thrown, message: safeString(thrown).slice(0, KEPT_MESSAGE_CHARS) };
}

const KEPT_MESSAGE_CHARS = MAX_DETAIL_TEXT_CHARS + SCAN_LOOKAHEAD;

function wellFormedMember(member: unknown): unknown {
  if (typeof member === 'string') return member.toWellFormed();
  if (member === null || typeof member !== 'object' || Array.isArray(member)) return member;
  const entries = Object.entries(member);
  return entries.every(([key]) => key.isWellFormed())
    ? member
    : Object.fromEntries(entries.map(([key, child]) => [key.toWellFormed(), child]));
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '<unprintable>';
  }
}

/**
 * Round-trips `value` through JSON, or describes why it could not. Never throws. Strings and keys come back
 * well-formed (a lone surrogate becomes U+FFFD): details end up in the audit, which canonical JSON must accept.
 */
export function jsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value, (_key, member: unknown) => wellFormedMember(member));
    return text === undefined ? null : (JSON.parse(text) as unknown);
  } catch (error) {
    return { unserializable: describeThrown(error) };
  }
}
