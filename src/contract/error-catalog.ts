/**
 * The fixed error catalog (SPEC §4). Every failure a model can see is one of these codes (or a business code a
 * tool declared, which borrows the `BUSINESS_RULE` entry). Each entry fixes what the model may do next; the model
 * may explain `message` but never rewrite `recovery`, and the Temporal layer derives its retry policy from
 * `retryable`.
 */

/**
 * What the model (or its operator) should do about an error. Closed set; new values are appended (the order is the
 * published enum's). `ask_user`: only the user can supply what is missing — a fact, a choice, an authorization —
 * so the model asks instead of guessing (seed 000's `action: "ask_user"`).
 */
export const RECOVERIES = [
  'correct_input',
  'choose_another_tool',
  'request_approval',
  'explain',
  'retry_after',
  'query_status',
  'human_review',
  'ask_user',
] as const;
export type Recovery = (typeof RECOVERIES)[number];

/** Broad class of an error, for dashboards and adapters. Closed set. */
export const ERROR_CATEGORIES = [
  'request',
  'access',
  'approval',
  'transient',
  'side_effect',
  'conflict',
  'protocol',
  'contract',
  'data_quality',
  'policy',
  'business',
  'internal',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/**
 * What an error says about the side effect: `not_started` (nothing ran), `unknown` (a write may or may not have
 * happened) or `as_executed` (the call ran; the outcome is whatever execution established).
 */
export type CatalogOutcome = 'not_started' | 'unknown' | 'as_executed';

/** One catalog row. */
export interface CatalogEntry {
  readonly category: ErrorCategory;
  readonly outcome: CatalogOutcome;
  readonly recovery: Recovery;
  readonly retryable: boolean;
  /** Safe text for the model. Never contains details of the failing call. */
  readonly message: string;
}

const entry = (
  category: ErrorCategory,
  outcome: CatalogOutcome,
  recovery: Recovery,
  retryable: boolean,
  message: string,
): CatalogEntry => Object.freeze({ category, outcome, recovery, retryable, message });

/** The catalog: code → category, outcome, recovery, retryability and safe message. */
export const ERROR_CATALOG = Object.freeze({
  UNKNOWN_TOOL: entry('request', 'not_started', 'choose_another_tool', false, 'No tool with this name is available.'),
  INVALID_ARGUMENTS: entry(
    'request',
    'not_started',
    'correct_input',
    false,
    'The arguments do not match the tool input schema.',
  ),
  // Distinct recoveries (seed 003): a missing resource is looked up again or corrected, a missing right only the user
  // can obtain. NOT_FOUND still does not say whether the resource exists elsewhere (docs/contract.md, "Errors").
  NOT_FOUND: entry(
    'access',
    'not_started',
    'correct_input',
    false,
    'The requested resource was not found; check the identifier or look it up again.',
  ),
  PERMISSION_DENIED: entry(
    'access',
    'not_started',
    'ask_user',
    false,
    'The caller is not permitted to perform this operation; the user must obtain access.',
  ),
  // A deploy in progress: the worker that took the call serves another revision of the tool than the workflow decided
  // the call by. Nothing ran; a read is retried by Temporal (another worker may serve it), a write is settled as is.
  TOOL_REVISION_UNSERVED: entry(
    'request',
    'not_started',
    'retry_after',
    true,
    'This tool is being updated; the call did not run. It may be requested again.',
  ),
  CALL_LIMIT_EXCEEDED: entry(
    'policy',
    'not_started',
    'explain',
    false,
    'This tool was already called as many times as this workflow allows; it did not run.',
  ),
  APPROVAL_REQUIRED: entry(
    'approval',
    'not_started',
    'request_approval',
    false,
    'This operation requires human approval before it can run.',
  ),
  APPROVAL_REJECTED: entry('approval', 'not_started', 'explain', false, 'A human reviewer rejected this operation.'),
  APPROVAL_INVALID: entry(
    'approval',
    'not_started',
    'request_approval',
    false,
    'The approval does not match this exact request or has expired.',
  ),
  TIMEOUT_BEFORE_EXECUTE: entry(
    'transient',
    'not_started',
    'retry_after',
    true,
    'The operation timed out before it started; it did not run.',
  ),
  RATE_LIMITED: entry(
    'transient',
    'not_started',
    'retry_after',
    true,
    'The upstream service is rate limiting requests; try again later.',
  ),
  UPSTREAM_UNAVAILABLE: entry(
    'transient',
    'not_started',
    'retry_after',
    true,
    'The upstream service is unavailable; the operation did not run.',
  ),
  OUTCOME_UNKNOWN: entry(
    'side_effect',
    'unknown',
    'query_status',
    false,
    'It is not known whether this operation took effect. Do not repeat it; its status is being checked.',
  ),
  // What reconciliation (or a person) established about a write whose outcome was unknown: it did not happen. Its
  // own code, so nothing says "timed out" when the attempt failed some other way (docs/contract.md).
  NOT_COMMITTED: entry(
    'side_effect',
    'not_started',
    'retry_after',
    true,
    'The operation did not take effect: the authoritative system confirmed it was not committed. It may be requested again.',
  ),
  IDEMPOTENCY_CONFLICT: entry(
    'conflict',
    'not_started',
    'human_review',
    false,
    'This idempotency key was already used for a different request.',
  ),
  STATUS_CONFLICT: entry(
    'conflict',
    'as_executed',
    'human_review',
    false,
    'The authoritative system reports a status that conflicts with this operation.',
  ),
  PROTOCOL_ERROR: entry(
    'protocol',
    'as_executed',
    'explain',
    false,
    'The upstream response was malformed or incomplete and was not used.',
  ),
  // Seed 001: a tool that broke its own contract, or failed unexpectedly, needs a person (a fix to the tool or its
  // upstream); the model can neither correct its input into a working call nor learn the internal detail.
  OUTPUT_CONTRACT_VIOLATION: entry(
    'contract',
    'as_executed',
    'human_review',
    false,
    'The tool produced output that violates its declared contract; it was not used.',
  ),
  INVARIANT_VIOLATION: entry(
    'contract',
    'as_executed',
    'explain',
    false,
    'The tool output failed a business consistency check and was not used.',
  ),
  STALE_DATA: entry(
    'data_quality',
    'as_executed',
    'explain',
    false,
    'The data is older than this tool allows and was not used.',
  ),
  SOURCE_NOT_ALLOWED: entry(
    'policy',
    'as_executed',
    'explain',
    false,
    'The data came from a source this tool is not allowed to use.',
  ),
  BUSINESS_RULE: entry('business', 'not_started', 'explain', false, 'The operation was refused by a business rule.'),
  TOOL_ERROR: entry('internal', 'as_executed', 'human_review', false, 'The tool failed unexpectedly.'),
  // The caller withdrew the call (a workflow cancel reached the running attempt). `as_executed`: a read simply
  // failed, a write that may have sent its request is settled as unknown like any write that ran (SPEC §4).
  CANCELLED: entry(
    'request',
    'as_executed',
    'explain',
    false,
    'The call was cancelled while it ran; its result was not used.',
  ),
  // Seed 004: an invariant failure stops the side effects of the run that saw it, until a person has looked.
  WRITES_HALTED: entry(
    'policy',
    'not_started',
    'human_review',
    false,
    'An earlier result in this run failed a business consistency check, so its writes are stopped until a person reviews it; this operation did not run.',
  ),
  // Seed 000: what a write rests on is read again right before it runs; this one no longer held.
  PRECONDITION_FAILED: entry(
    'conflict',
    'not_started',
    'explain',
    false,
    'What this operation rests on no longer holds (it was read again just now); the operation did not run.',
  ),
} satisfies Record<string, CatalogEntry>);

/**
 * What the model is told about a write that did not happen (`NOT_COMMITTED`), by what came before: safe, fixed texts
 * — the only wordings of that code besides its catalog text (see {@link CATALOG_MESSAGE_VARIANTS}).
 */
export const NOT_COMMITTED_MESSAGES = Object.freeze({
  timeout:
    'The operation timed out; the authoritative system then confirmed it did not take effect. It may be requested again.',
  error:
    'The operation failed; the authoritative system then confirmed it did not take effect. It may be requested again.',
  lost: 'The operation ended without an answer; the authoritative system then confirmed it did not take effect. It may be requested again.',
  accepted:
    'The job was accepted, but the authoritative system then reported it ended without taking effect. It may be requested again.',
  unknown: 'The authoritative system confirmed the operation did not take effect. It may be requested again.',
  human: 'A person confirmed the operation did not take effect. It may be requested again.',
});

/**
 * What the model is told when the evidence layer refuses a tool's output (`OUTPUT_CONTRACT_VIOLATION`, layer
 * `evidence`), by what was wrong: safe, fixed texts that say why in the model's terms (the detail, which may quote
 * the tool's output, stays in the audit).
 */
export const EVIDENCE_FAILURE_MESSAGES = Object.freeze({
  malformed:
    'The tool cited its evidence incompletely (each item needs a kind, a locator and the fields it supports), so the result could not be checked and was not used.',
  dangling:
    'The tool cited evidence for fields its data does not have, so the result could not be checked and was not used.',
  observedAt:
    'The tool did not say in a readable form when its data was observed (a date and time with a time zone, an HTTP date or epoch milliseconds), so its freshness could not be checked and the result was not used.',
  conflicts:
    'The tool reported a disagreement between sources that does not name a field of its data with two or more sourced values, so the result was not used.',
});

/** What the model is told about a refused continuation cursor (`INVALID_ARGUMENTS`): the same for a forged, a foreign and an expired one. */
export const REFUSED_CURSOR_MESSAGE =
  'The continuation cursor is not valid for this call (changed, issued for another call, or expired). Start the listing again without it.';

/**
 * The wordings a code's message may take besides its catalog text, each for one named case; the model result schema
 * refuses any other text. A `detailed` code may end its catalog text with `: <detail>` instead of `.` (the input
 * schema's issues, which name the model's own arguments); `alternatives` are fixed texts.
 */
export const CATALOG_MESSAGE_VARIANTS: {
  readonly detailed: readonly CatalogCode[];
  readonly alternatives: Readonly<Partial<Record<CatalogCode, readonly string[]>>>;
} = Object.freeze({
  detailed: Object.freeze(['INVALID_ARGUMENTS'] as const),
  alternatives: Object.freeze({
    NOT_COMMITTED: Object.freeze(Object.values(NOT_COMMITTED_MESSAGES)),
    INVALID_ARGUMENTS: Object.freeze([REFUSED_CURSOR_MESSAGE]),
    OUTPUT_CONTRACT_VIOLATION: Object.freeze(Object.values(EVIDENCE_FAILURE_MESSAGES)),
  }),
});

/** A code of the fixed catalog. */
export type CatalogCode = keyof typeof ERROR_CATALOG;

/** Every catalog code, in catalog order. */
export const CATALOG_CODES = Object.freeze(Object.keys(ERROR_CATALOG) as CatalogCode[]);

/** True when `code` names a catalog entry (own property only: `toString` is not a code). */
export function isCatalogCode(code: unknown): code is CatalogCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOG, code);
}

/** Codes that must never be retried by Temporal: Temporal's `nonRetryableErrorTypes` is built from this. */
export function nonRetryableCodes(): CatalogCode[] {
  return CATALOG_CODES.filter((code) => !ERROR_CATALOG[code].retryable);
}
