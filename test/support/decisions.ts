// The decision key of the integration tests: the runtime harness's worker verifies with its public half, and the
// tests sign approvals and resolutions with it, as an approval service would.
import {
  generateDecisionKey,
  signDecision,
  signedDecisions,
  verifyingKey,
  type DecisionKey,
} from '../../src/decisions/index.js';
import type {
  ApprovalDecision,
  PendingApproval,
  ReconcileStatus,
  ResolveOutcomeSignal,
} from '../../workflows/index.js';

/** The approval service's key (Ed25519, made per test process). */
export const TEST_DECISION_KEY: DecisionKey = generateDecisionKey('ed25519', 'test-approvals');
/** What the harness's worker verifies decisions with: the public half only. */
export const testDecisions = signedDecisions({ keys: [verifyingKey(TEST_DECISION_KEY)] });

/** Options of {@link signedApproval}. */
export interface ApprovalOptions {
  readonly decision?: ApprovalDecision['decision'];
  readonly approver?: string;
  readonly reason?: string;
  /** Sign with another key (a forger's). */
  readonly key?: DecisionKey;
  /** Sign for something else than the pending call (another digest, run or call): the token lies, the message does not. */
  readonly signFor?: Partial<{ workflowId: string; runId: string; callId: string; requestSha256: string }>;
}

/** A signed decision on a pending call, as `tool-contract approve` makes it. */
export function signedApproval(pending: PendingApproval, options: ApprovalOptions = {}): ApprovalDecision {
  const decision = options.decision ?? 'approve';
  const approver = options.approver ?? 'alice@example.com';
  const token = signDecision(
    {
      kind: 'approval',
      workflowId: pending.workflowId,
      runId: pending.runId,
      callId: pending.callId,
      requestSha256: pending.preview.requestSha256,
      ...options.signFor,
      decision,
      decidedBy: approver,
      ...(options.reason === undefined ? {} : { note: options.reason }),
    },
    options.key ?? TEST_DECISION_KEY,
  );
  return {
    callId: pending.callId,
    requestSha256: pending.preview.requestSha256,
    decision,
    token,
    ...(options.reason === undefined ? {} : { reason: options.reason }),
  };
}

/** A signed resolution of an escalated reconciliation, as `tool-contract resolve` makes it. */
export function signedResolution(
  status: ReconcileStatus,
  resolution: {
    readonly outcome: 'committed' | 'not_committed';
    readonly externalId?: string;
    readonly resolvedBy: string;
    readonly note?: string;
  },
): ResolveOutcomeSignal {
  const { outcome, externalId, resolvedBy, note } = resolution;
  const token = signDecision(
    {
      kind: 'resolution',
      workflowId: status.workflowId,
      runId: status.runId,
      idempotencyKey: status.idempotencyKey,
      decision: outcome,
      decidedBy: resolvedBy,
      ...(externalId === undefined ? {} : { externalId }),
      ...(note === undefined ? {} : { note }),
    },
    TEST_DECISION_KEY,
  );
  return {
    outcome,
    token,
    ...(externalId === undefined ? {} : { externalId }),
    ...(note === undefined ? {} : { note }),
  };
}
