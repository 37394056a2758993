import { StoreError, isStoreError, type StoreFailure } from '../store-error.js';

/** SQLSTATE raised by the append-only triggers of migration 001 (`ttc_refuse_change`). */
export const APPEND_ONLY_SQLSTATE = 'TT001';

/** SQLSTATEs of the audit lifecycle's functions (migration 007): a retired month, a retention run refused. */
const LIFECYCLE_FAILURES: Readonly<Record<string, StoreFailure>> = {
  TT002: 'period_retired',
  TT003: 'retention_refused',
};

/** Constraints whose violation has a meaning of its own (named once, in migration 001). */
const CONSTRAINT_FAILURES: Readonly<Record<string, StoreFailure>> = {
  ttc_state_patches_version_key: 'version_conflict',
  ttc_state_pkey: 'version_conflict',
  // Two writers of one patch id raced; the state-patch code re-reads it and answers replay or reuse.
  ttc_state_patches_pkey: 'patch_id_reused',
  ttc_memory_external_needs_confirmation: 'invalid_input',
  ttc_memory_fact_needs_evidence: 'evidence_required',
};

/**
 * pg reports a lost connection with these messages and no code; they are the only texts matched here, because
 * the driver offers nothing else to tell "the server went away" from a programming error.
 */
const CONNECTION_LOST_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'timeout expired',
  'timeout exceeded when trying to connect',
];

interface PgLikeError {
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly syscall?: unknown;
  readonly message?: unknown;
}

/** Maps anything a pg call threw to a {@link StoreError}: by SQLSTATE and constraint, never by message text. */
export function toStoreError(error: unknown): StoreError {
  if (isStoreError(error)) return error;
  const reason = classify(error);
  const e = (error ?? {}) as PgLikeError;
  const details: Record<string, unknown> = {};
  if (typeof e.code === 'string') details[typeof e.syscall === 'string' ? 'errno' : 'sqlstate'] = e.code;
  if (typeof e.constraint === 'string') details['constraint'] = e.constraint;
  return new StoreError(reason, details, error);
}

function classify(error: unknown): StoreFailure {
  if (!(error instanceof Error)) return 'internal';
  const { code, constraint, syscall } = error as PgLikeError;
  // Node system errors (ECONNREFUSED, ECONNRESET, EPIPE…) carry `syscall`: the server is not reachable.
  if (typeof syscall === 'string') return 'unavailable';
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return classifySqlState(code, typeof constraint === 'string' ? constraint : null);
  if (CONNECTION_LOST_MESSAGES.includes(error.message)) return 'unavailable';
  return 'internal';
}

function classifySqlState(code: string, constraint: string | null): StoreFailure {
  if (code === APPEND_ONLY_SQLSTATE) return 'append_only';
  const lifecycle = LIFECYCLE_FAILURES[code];
  if (lifecycle) return lifecycle;
  // A row outside every partition is a check violation that names no constraint.
  if (code === '23514' && constraint === null) return 'no_partition';
  if (constraint !== null) {
    const known = CONSTRAINT_FAILURES[constraint];
    if (known) return known;
  }
  const cls = code.slice(0, 2);
  // 08 connection exception; 57P01-03 shutdown / cannot connect now; 53 insufficient resources (too many connections).
  if (cls === '08' || code === '57P01' || code === '57P02' || code === '57P03' || cls === '53') return 'unavailable';
  if (code === '40001' || code === '40P01') return 'serialization_failure';
  if (code === '42P01' || code === '42883') return 'schema_missing';
  // 22 data exception (bad encoding, out-of-range, bad timestamp); 54 program limit exceeded; 23514 check violation.
  if (cls === '22' || cls === '54' || code === '23514') return 'invalid_input';
  return 'internal';
}
