import { UNAUTHENTICATED_METHOD, type DecisionRecord } from '../src/contract/decision-record.js';
import type { DecisionAuthenticator } from '../src/decisions/authenticator.js';
import type { DecisionClaims } from '../src/decisions/claims.js';
import type { DecisionRefusal } from '../src/wire/decisions.js';

/** How the worker authenticates decisions (the plugin's `decisions`). */
export type DecisionVerification =
  /** Tokens are verified by this authenticator; unsigned decisions are refused. */
  | { readonly kind: 'signed'; readonly authenticator: DecisionAuthenticator }
  /** Decisions count as sent, recorded `unauthenticated` (`unauthenticatedForDevelopment()`: development only). */
  | { readonly kind: 'unauthenticated' }
  /** Nothing to verify with: every decision is refused (`no_verifier`). */
  | { readonly kind: 'none' };

/** How the worker decides whether a decision counts (the plugin's `decisions` and `forbidSelfApproval`). */
export interface DecisionPolicy {
  readonly verification: DecisionVerification;
  /** Refuse an approval whose approver is the call's own principal (by subject). */
  readonly forbidSelfApproval: boolean;
}

/** A decision as its sender sent it: the message, before anything verified it. */
export type SubmittedDecision = {
  /** The signed token; required whenever the worker has an authenticator. */
  readonly token: string | null;
  /** The name the sender gave; it counts only on a worker that takes decisions unauthenticated. */
  readonly claimedBy: string | null;
  /** The sender's reason or note; for a signed decision, the token's note counts instead. */
  readonly note: string | null;
} & (
  | { readonly kind: 'approval'; readonly decision: 'approve' | 'reject'; readonly requestSha256: string }
  | {
      readonly kind: 'resolution';
      readonly decision: 'committed' | 'not_committed';
      readonly externalId: string | null;
    }
);

/** What a decision must be about. Trusted: built by the worker from workflow state and activity info. */
export type DecisionSubject =
  | {
      readonly kind: 'approval';
      readonly workflowId: string;
      /** The run the call waits in; `null` accepts any run of the workflow id (the reconciliation's safe re-dispatch). */
      readonly runId: string | null;
      readonly callId: string;
      readonly requestSha256: string;
      /** The call's principal, for the self-approval rule. */
      readonly principalSubject: string;
    }
  | {
      readonly kind: 'resolution';
      readonly workflowId: string;
      readonly runId: string;
      readonly idempotencyKey: string;
    };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What the workflow knows a decision must be about; the workflow run comes from the activity's own coordinates. */
export type DecisionTarget = DistributiveOmit<DecisionSubject, 'workflowId' | 'runId'>;

/** What an activity acting on a decision expects it to say. */
export type ExpectedDecision = DistributiveOmit<SubmittedDecision, 'token' | 'claimedBy' | 'note'>;

/** The outcome of {@link checkDecision}. */
export type DecisionCheck =
  { readonly ok: true; readonly record: DecisionRecord } | { readonly ok: false; readonly reason: DecisionRefusal };

/** Options of {@link checkDecision}. */
export interface CheckOptions {
  readonly now: number;
  /**
   * Refuse tokens past their expiry (default). Activities that re-check a rejection or a resolution the workflow
   * verified earlier do not (see `confirmDecision`).
   */
  readonly checkExpiry?: boolean;
  /** Id for an unauthenticated decision (a signed one carries its own). */
  readonly mintDecisionId: () => string;
}

/** How far a token's issue time may lie in the worker's future (clock skew between signer and worker). */
export const MAX_CLOCK_SKEW_MS = 60_000;

/**
 * Decides whether `submitted` decides `subject`. The authenticator says who signed what; everything else is checked
 * here, the same way for every authenticator: the token is for this workflow run and this call (or key), for this
 * request digest, says what the message says, has not expired, and — when the rule is on — is not the principal
 * approving their own call. Taken unauthenticated (development), the decision counts as sent, recorded so; with no
 * verification at all, none counts.
 */
export async function checkDecision(
  policy: DecisionPolicy,
  submitted: SubmittedDecision,
  subject: DecisionSubject,
  options: CheckOptions,
): Promise<DecisionCheck> {
  if (submitted.kind !== subject.kind) return refuse('malformed');
  if (submitted.kind === 'approval' && subject.kind === 'approval' && submitted.requestSha256 !== subject.requestSha256)
    return refuse('digest_mismatch');
  const { verification } = policy;
  if (verification.kind === 'none') return refuse('no_verifier');
  if (verification.kind === 'unauthenticated') return unauthenticated(policy, submitted, subject, options);
  if (submitted.token === null) return refuse('unsigned');
  let authentication;
  try {
    authentication = await verification.authenticator.authenticate(submitted.token);
  } catch {
    return refuse('verification_failed');
  }
  if (!authentication.ok) return refuse(authentication.reason);
  const { claims, method, keyId } = authentication.decision;
  const mismatch = bindingMismatch(claims, submitted, subject, options);
  if (mismatch !== null) return refuse(mismatch);
  if (
    claims.kind === 'approval' &&
    subject.kind === 'approval' &&
    isSelfApproval(policy, claims.decidedBy, subject.principalSubject)
  )
    return refuse('self_approval');
  return {
    ok: true,
    record: {
      decision_id: claims.decisionId,
      kind: claims.kind,
      decision: claims.decision,
      decided_by: claims.decidedBy,
      method,
      key_id: keyId,
      // When the person decided (signed), so re-checking a token later yields the very same record.
      decided_at: claims.issuedAt,
      request_sha256: claims.kind === 'approval' ? claims.requestSha256 : null,
      note: claims.note ?? null,
      external_id: claims.kind === 'resolution' ? (claims.externalId ?? null) : null,
    },
  };
}

function bindingMismatch(
  claims: DecisionClaims,
  submitted: SubmittedDecision,
  subject: DecisionSubject,
  options: CheckOptions,
): DecisionRefusal | null {
  if (
    claims.kind !== subject.kind ||
    claims.workflowId !== subject.workflowId ||
    (subject.runId !== null && claims.runId !== subject.runId)
  )
    return 'binding_mismatch';
  if (claims.kind === 'approval' && subject.kind === 'approval') {
    if (claims.callId !== subject.callId) return 'binding_mismatch';
    if (claims.requestSha256 !== subject.requestSha256) return 'digest_mismatch';
  }
  if (claims.kind === 'resolution' && subject.kind === 'resolution' && claims.idempotencyKey !== subject.idempotencyKey)
    return 'binding_mismatch';
  if (claims.decision !== submitted.decision) return 'decision_mismatch';
  if (
    claims.kind === 'resolution' &&
    submitted.kind === 'resolution' &&
    (claims.externalId ?? null) !== submitted.externalId
  )
    return 'decision_mismatch';
  if (
    options.checkExpiry !== false &&
    (Date.parse(claims.expiresAt) < options.now || Date.parse(claims.issuedAt) > options.now + MAX_CLOCK_SKEW_MS)
  )
    return 'expired';
  return null;
}

function unauthenticated(
  policy: DecisionPolicy,
  submitted: SubmittedDecision,
  subject: DecisionSubject,
  options: CheckOptions,
): DecisionCheck {
  if (submitted.claimedBy === null) return refuse('malformed');
  if (subject.kind === 'approval' && isSelfApproval(policy, submitted.claimedBy, subject.principalSubject))
    return refuse('self_approval');
  return {
    ok: true,
    record: {
      decision_id: options.mintDecisionId(),
      kind: submitted.kind,
      decision: submitted.decision,
      decided_by: submitted.claimedBy,
      method: UNAUTHENTICATED_METHOD,
      key_id: null,
      decided_at: new Date(options.now).toISOString(),
      request_sha256: submitted.kind === 'approval' ? submitted.requestSha256 : null,
      note: submitted.note,
      external_id: submitted.kind === 'resolution' ? submitted.externalId : null,
    },
  };
}

/**
 * True when the rule is on and the approver is the call's principal. Compared without case and surrounding space:
 * `User-42` approving for `user-42` is the same person.
 */
export function isSelfApproval(policy: DecisionPolicy, approver: string, principalSubject: string): boolean {
  return policy.forbidSelfApproval && approver.trim().toLowerCase() === principalSubject.trim().toLowerCase();
}

function refuse(reason: DecisionRefusal): DecisionCheck {
  return { ok: false, reason };
}
