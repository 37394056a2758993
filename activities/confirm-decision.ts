import { decisionRecordSchema } from '../src/contract/decision-record.js';
import {
  checkDecision,
  isSelfApproval,
  type DecisionCheck,
  type DecisionPolicy,
  type DecisionSubject,
  type ExpectedDecision,
} from './check-decision.js';
import type { VerifiedDecision } from './verify-decision.js';

/**
 * Re-checks a decision the workflow verified, in the activity that acts on it (runs the tool, records a rejection,
 * settles a reconciliation). Its input comes from workflow code, which any workflow on the task queue can write; so
 * the decision must hold again: with an authenticator, its token verifies and is bound to `subject` and says
 * `expected`; taken unauthenticated (development), its record says `expected`. Returns the record to put in the audit.
 *
 * An approval acts only until its token expires, at the first dispatch and at a safe re-dispatch alike: a run of the
 * write after that needs a new decision, so a token copied from history is worth nothing once its lifetime is over.
 * A rejection and a resolution are not checked for age: stopping a call is always safe, and a resolution is bound to
 * the reconciliation run it settles.
 */
export async function confirmDecision(
  policy: DecisionPolicy,
  verified: VerifiedDecision | undefined,
  subject: DecisionSubject,
  expected: ExpectedDecision,
): Promise<DecisionCheck> {
  const record = decisionRecordSchema.safeParse(verified?.decision);
  if (verified === undefined || !record.success) return { ok: false, reason: 'malformed' };
  if (policy.verification.kind === 'none') return { ok: false, reason: 'no_verifier' };
  if (policy.verification.kind === 'unauthenticated') {
    const decision = record.data;
    if (decision.kind !== expected.kind || decision.decision !== expected.decision)
      return { ok: false, reason: 'decision_mismatch' };
    if (expected.kind === 'approval' && subject.kind === 'approval') {
      if (decision.request_sha256 !== subject.requestSha256) return { ok: false, reason: 'digest_mismatch' };
      if (isSelfApproval(policy, decision.decided_by, subject.principalSubject))
        return { ok: false, reason: 'self_approval' };
    }
    if (expected.kind === 'resolution' && decision.external_id !== expected.externalId)
      return { ok: false, reason: 'decision_mismatch' };
    return { ok: true, record: decision };
  }
  return checkDecision(policy, { ...expected, token: verified.token, claimedBy: null, note: null }, subject, {
    now: Date.now(),
    checkExpiry: expected.kind === 'approval' && expected.decision === 'approve',
    mintDecisionId: () => record.data.decision_id,
  });
}
