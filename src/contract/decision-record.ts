import { z } from 'zod';
import type { ToolExecution } from './execute-tool.js';

/**
 * A person's decision on one call, as the worker verified it: who decided what, how they were authenticated, when,
 * and the decision's own id. It is the `decision` of the audit record of the call it decided (approved and rejected
 * calls, human resolutions), and the answer a sender of a decision gets. Snake case: it is stored in the audit and
 * compared with it.
 */
export const decisionRecordSchema = z.strictObject({
  /** Unique per decision (from the signed token, or minted by the worker for an unauthenticated one). */
  decision_id: z.string().min(1).max(200),
  kind: z.enum(['approval', 'resolution']),
  decision: z.enum(['approve', 'reject', 'committed', 'not_committed']),
  /** The approver or resolver, as the authenticator vouched for it (or as sent, for `unauthenticated`). */
  decided_by: z.string().min(1).max(200),
  /** How the decider was authenticated: the token's algorithm (`ed25519`, `hmac-sha256`, …) or `unauthenticated`. */
  method: z.string().min(1).max(100),
  /** The key that verified the token; `null` when unauthenticated. */
  key_id: z.string().max(200).nullable(),
  decided_at: z.iso.datetime({ offset: true }),
  /** The approval's request digest: the exact request that was decided. `null` for resolutions. */
  request_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** The reason or note the decider gave. */
  note: z.string().max(2000).nullable(),
  /** The authoritative system's id of a write a resolver says committed; else `null`. */
  external_id: z.string().max(256).nullable(),
});

/** A verified decision (see {@link decisionRecordSchema}). */
export type DecisionRecord = z.infer<typeof decisionRecordSchema>;

export { UNAUTHENTICATED_METHOD } from './decision-method.js';

/** The execution with `decision` in its audit record: the person's decision this attempt carried out or recorded. */
export function withDecision(execution: ToolExecution, decision: DecisionRecord): ToolExecution {
  return { ...execution, audit: { ...execution.audit, decision } };
}
