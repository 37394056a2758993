/**
 * Why a workflow refused an approval or a resolution. A closed set: it is stored in history (update answers,
 * queries) and read by clients, which branch on it.
 */
export const DECISION_REFUSALS = [
  /** Not a decision: wrong fields or types. */
  'malformed',
  /** No call with this id waits for approval now: too early, unknown, or its wait is over. */
  'not_pending',
  /** The reconciliation is not waiting for a person (it is still asking the authoritative system, or settled). */
  'not_escalated',
  /** Another decision settled the call first; the answer names it. */
  'already_decided',
  /** The decision is for other arguments than the pending call's (another request digest). */
  'digest_mismatch',
  /** The call already has as many decisions waiting for verification as it accepts. */
  'too_many',
  /** The worker requires signed decisions and this one carries no token. */
  'unsigned',
  /** The token is not a decision token (encoding, fields, size). */
  'bad_token',
  /** The token names a key the worker does not hold. */
  'unknown_key',
  /** The signature does not verify. */
  'bad_signature',
  /** The token is past its expiry, or issued in the future. */
  'expired',
  /** The token was issued for another workflow, run, call or idempotency key. */
  'binding_mismatch',
  /** The token says something else than the message that carries it (decision, digest, outcome or external id). */
  'decision_mismatch',
  /** The approver is the call's own principal, and the worker forbids self-approval. */
  'self_approval',
  /** The worker could not verify the decision (its authenticator failed); sending it again may succeed. */
  'verification_failed',
  /** The worker has no way to verify decisions (the plugin was given no `decisions`): none counts. */
  'no_verifier',
] as const;

/** One of {@link DECISION_REFUSALS}. */
export type DecisionRefusal = (typeof DECISION_REFUSALS)[number];

/** Longest decision token accepted: a decision is small, and a token travels in signals, updates and history. */
export const MAX_DECISION_TOKEN_CHARS = 4096;
