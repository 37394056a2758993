import type { CatalogCode } from '../contract/error-catalog.js';
import { ToolError, type ToolErrorDetails } from '../contract/tool-error.js';

/**
 * Why a store operation failed: a closed set, finer than the catalog code, for operators and tests. Each reason
 * maps to exactly one catalog code (see {@link STORE_FAILURE_CODES}).
 */
export type StoreFailure =
  | 'idempotency_conflict'
  | 'audit_id_reused'
  | 'patch_id_reused'
  | 'memory_id_reused'
  | 'approval_request_reused'
  | 'version_conflict'
  | 'reconciliation_conflict'
  | 'verdict_premature'
  | 'not_a_candidate'
  | 'evidence_not_found'
  | 'evidence_required'
  | 'invalid_input'
  | 'artifact_not_found'
  | 'digest_mismatch'
  | 'reconciliation_not_found'
  | 'memory_not_found'
  | 'audit_not_found'
  | 'label_mismatch'
  | 'provenance_mismatch'
  | 'evidence_expired'
  | 'unavailable'
  | 'serialization_failure'
  | 'append_only'
  | 'period_retired'
  | 'no_partition'
  | 'retention_refused'
  | 'schema_missing'
  | 'migration_mismatch'
  | 'role_setup'
  | 'internal';

/**
 * The catalog code each store failure surfaces as. `unavailable` and `serialization_failure` are the only
 * retryable ones (`UPSTREAM_UNAVAILABLE`): the statement did not commit, so running it again is safe.
 */
export const STORE_FAILURE_CODES = Object.freeze({
  idempotency_conflict: 'IDEMPOTENCY_CONFLICT',
  audit_id_reused: 'IDEMPOTENCY_CONFLICT',
  patch_id_reused: 'IDEMPOTENCY_CONFLICT',
  memory_id_reused: 'IDEMPOTENCY_CONFLICT',
  // Another request recorded for a call that already has one: a request is written once.
  approval_request_reused: 'IDEMPOTENCY_CONFLICT',
  version_conflict: 'STATUS_CONFLICT',
  reconciliation_conflict: 'STATUS_CONFLICT',
  // "Not committed" cannot be concluded yet: the fenced dispatch may still be in flight, or a commit was recorded.
  verdict_premature: 'STATUS_CONFLICT',
  not_a_candidate: 'STATUS_CONFLICT',
  // "Absent" and "belongs to another workflow" share one reason on purpose, like NOT_FOUND does.
  evidence_not_found: 'INVALID_ARGUMENTS',
  evidence_required: 'INVALID_ARGUMENTS',
  invalid_input: 'INVALID_ARGUMENTS',
  artifact_not_found: 'NOT_FOUND',
  // Stored bytes that no longer match their digest (artifact body, recorded model result, audit record, evidence
  // that is not what its audit says) are a protocol failure, like a body shorter than its declared length: the
  // data is not used.
  digest_mismatch: 'PROTOCOL_ERROR',
  reconciliation_not_found: 'NOT_FOUND',
  memory_not_found: 'NOT_FOUND',
  audit_not_found: 'NOT_FOUND',
  // A false_accept on a refused attempt (or a false_reject on an accepted one) judges nothing the metrics count.
  label_mismatch: 'INVALID_ARGUMENTS',
  // A state patch whose source or times are not those of the evidence it cites.
  provenance_mismatch: 'INVALID_ARGUMENTS',
  // A state patch citing only results whose validity window has ended (issue 27, item 10): read them again.
  evidence_expired: 'STALE_DATA',
  unavailable: 'UPSTREAM_UNAVAILABLE',
  serialization_failure: 'UPSTREAM_UNAVAILABLE',
  append_only: 'TOOL_ERROR',
  // A row dated in a month retention dropped (migration 007): never recorded where retention cannot see it.
  period_retired: 'TOOL_ERROR',
  // A row dated in a month whose partitions do not exist (the store prepares them before writing: a raw insert).
  no_partition: 'TOOL_ERROR',
  // Retention refused to drop months holding unsealed rows or unsettled side effects (seal, settle, then retry).
  retention_refused: 'STATUS_CONFLICT',
  schema_missing: 'TOOL_ERROR',
  migration_mismatch: 'TOOL_ERROR',
  // The application role could do what an owner can (it is the owner, a superuser, a member, or owns the tables).
  role_setup: 'TOOL_ERROR',
  internal: 'TOOL_ERROR',
} satisfies Record<StoreFailure, CatalogCode>);

/**
 * A store failure: a {@link ToolError} (so the Temporal boundary translates it like any other) whose `code` is a
 * catalog code and whose `reason` says which store rule failed. Match on `code`/`reason`, never on the message.
 */
export class StoreError extends ToolError {
  readonly reason: StoreFailure;

  constructor(reason: StoreFailure, details: ToolErrorDetails = {}, cause?: unknown) {
    super(STORE_FAILURE_CODES[reason], { reason, ...details }, cause === undefined ? {} : { cause });
    this.reason = reason;
  }

  /** True when repeating the operation is safe and may succeed (nothing was committed). */
  get retryable(): boolean {
    return this.code === 'UPSTREAM_UNAVAILABLE';
  }
}

/** Recognizes a {@link StoreError} even across module copies. */
export function isStoreError(error: unknown): error is StoreError {
  return (
    error instanceof StoreError ||
    (error instanceof Error &&
      typeof (error as { reason?: unknown }).reason === 'string' &&
      typeof (error as { code?: unknown }).code === 'string')
  );
}
