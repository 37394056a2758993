// Many decisions racing for one call that awaits approval: approvals and rejections, by update and by signal, some
// for the wrong request digest, some forged, many duplicates — exactly one decision takes effect, every update that
// lost is told which one won, the tool runs exactly once iff that one approved, and the audit names the winner.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { generateDecisionKey } from '../../../src/decisions/index.js';
import {
  APPROVAL_DECISIONS_QUERY,
  APPROVAL_SIGNAL,
  APPROVAL_UPDATE,
  PENDING_APPROVALS_QUERY,
} from '../../../src/wire/names.js';
import type {
  ApprovalDecision,
  ApprovalDecisions,
  ApprovalUpdateResult,
  PendingApproval,
  ToolCallResult,
} from '../../../workflows/index.js';
import { signedApproval, TEST_DECISION_KEY } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const ROUNDS = 6;
const DECISIONS_PER_ROUND = 50;

/** How one decision is sent, what it says, and whether it could ever count. */
interface Racer {
  readonly via: 'update' | 'signal';
  readonly decision: ApprovalDecision;
  readonly kind: 'valid' | 'wrong_digest' | 'forged';
}

/** What the workflow answered a racer. */
type Answer = ApprovalUpdateResult | 'signalled' | 'closed';

const h = useRuntimeHarness('rel-approval-races');

/** A seeded generator, so every run races the same mix in the same order. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The mix of one round. Signals are fire-and-forget and reach the workflow before any update (which waits for a
 * worker round trip), so `mixed` rounds are usually decided by a signal; `updates` rounds race updates only, where
 * exactly one must be told "accepted".
 */
type RoundMode = 'mixed' | 'updates';

const forger = generateDecisionKey('ed25519', TEST_DECISION_KEY.id);

function racers(pending: PendingApproval, random: () => number, mode: RoundMode): Racer[] {
  return Array.from({ length: DECISIONS_PER_ROUND }, (_, i) => {
    const roll = random();
    const kind: Racer['kind'] = roll < 0.15 ? 'wrong_digest' : roll < 0.25 ? 'forged' : 'valid';
    const signed = signedApproval(pending, {
      decision: random() > 0.5 ? 'approve' : 'reject',
      approver: `approver-${i % 7}@example.com`,
      reason: `racer ${i}`,
      ...(kind === 'forged' ? { key: forger } : {}),
    });
    const decision = kind === 'wrong_digest' ? { ...signed, requestSha256: 'e'.repeat(64) } : signed;
    return { via: mode === 'updates' || random() > 0.5 ? 'update' : 'signal', decision, kind };
  });
}

/** The decision id a racer's token carries. */
function decisionIdOf(racer: Racer): string {
  const [payload = ''] = (racer.decision.token ?? '').split('.');
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { decisionId: string }).decisionId;
}

async function send(handle: WorkflowHandle, racer: Racer): Promise<Answer> {
  try {
    if (racer.via === 'signal') {
      await handle.signal(APPROVAL_SIGNAL, racer.decision);
      return 'signalled';
    }
    return await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, {
      args: [racer.decision],
    });
  } catch (error) {
    // A decision that arrives as (or after) the workflow closes is refused by the server — the workflow is gone, or
    // its last workflow task completed it without taking the update — the call was decided.
    if (error instanceof WorkflowNotFoundError) return 'closed';
    if (
      error instanceof WorkflowUpdateFailedError &&
      error.cause instanceof ApplicationFailure &&
      error.cause.type === 'UnprocessedUpdate'
    )
      return 'closed';
    throw error;
  }
}

const tally: {
  round: number;
  mode: RoundMode;
  winner: string;
  accepted: number;
  lost: number;
  refused: number;
  closed: number;
  signals: number;
  ms: number;
}[] = [];

for (let round = 1; round <= ROUNDS; round++) {
  const mode: RoundMode = round % 2 === 0 ? 'updates' : 'mixed';
  test(
    `round ${round} (${mode}): ${DECISIONS_PER_ROUND} concurrent decisions, exactly one takes effect and every loser is told the winner`,
    { timeout: 120_000 },
    async () => {
      const { client } = h.temporal;
      const paymentId = `pay_race_${round}`;
      const workflowId = `approval-race-${round}`;
      const handle = await client.workflow.start('runToolCall', {
        taskQueue: h.taskQueue,
        workflowId,
        args: [TOOLS.refund, { payment_id: paymentId, customer: 'cus_1', amount_cents: 700 }, { principal }],
      });
      const pending = await eventually(
        'a pending approval',
        async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
      );
      const mix = racers(pending, seeded(round * 7919), mode);
      const started = Date.now();
      const answers = await Promise.all(mix.map((racer) => send(handle, racer)));
      const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
      const ms = Date.now() - started;

      // Exactly one effective decision, on the workflow's record.
      const { decided } = await handle.query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY);
      assert.equal(decided.length, 1, 'one decision decided the call');
      const winner = decided[0]!.decision;
      const approved = modelResult.status === 'succeeded';
      assert.equal(winner.decision, approved ? 'approve' : 'reject');
      if (!approved) assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');

      // Every update was answered truthfully: the winner accepted, the rest refused with why, losers told the winner.
      const updates = mix.flatMap((racer, i) =>
        racer.via === 'update' && typeof answers[i] === 'object' ? [{ racer, answer: answers[i] }] : [],
      );
      const accepted = updates.filter(({ answer }) => answer.accepted);
      assert.ok(accepted.length <= 1, `${accepted.length} updates were told they decided the call`);
      if (mode === 'updates')
        assert.equal(accepted.length, 1, 'with updates only, exactly one is told it decided the call');
      for (const { answer } of accepted)
        if (answer.accepted)
          assert.equal(
            answer.decision.decision_id,
            winner.decision_id,
            'the accepted update is the effective decision',
          );
      if (accepted.length === 0)
        assert.ok(
          mix.some((r) => r.via === 'signal' && r.kind === 'valid' && r.decision.decision === winner.decision),
          'a valid signal decided the call',
        );
      for (const { racer, answer } of updates) {
        if (answer.accepted) continue;
        if (racer.kind === 'wrong_digest')
          assert.ok(['digest_mismatch', 'already_decided'].includes(answer.reason), answer.reason);
        else if (racer.kind === 'forged')
          assert.ok(['bad_signature', 'already_decided'].includes(answer.reason), answer.reason);
        else assert.equal(answer.reason, 'already_decided', 'a valid decision only loses to the winner');
        if (answer.reason === 'already_decided')
          assert.equal(answer.winner?.decision_id, winner.decision_id, 'every loser is told the winner');
      }
      assert.equal(
        mix.find((racer) => decisionIdOf(racer) === winner.decision_id)?.kind,
        'valid',
        'the winner is one of the valid decisions sent',
      );

      // The audit of the call names the winner, and the tool ran exactly once iff the winner approved.
      const audit = (await h.store.listAudits({ workflowId })).find(
        (row) => row.audit.audit_id === auditRef?.audit_id,
      )?.audit;
      assert.equal(audit?.decision?.decision_id, winner.decision_id, 'the audit names the effective decision');
      assert.equal(audit?.decision?.decided_by, winner.decided_by);
      assert.equal(audit?.error_code, approved ? null : 'APPROVAL_REJECTED');
      const key = chargeKey(principal.tenant, paymentId, TOOLS.refund);
      assert.equal(h.payments.dispatches(key), approved ? 1 : 0, 'the refund ran at most once, and only when approved');
      assert.equal(h.payments.commits(key), approved ? 1 : 0);
      const history = await handle.fetchHistory();
      assert.equal(
        (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length,
        0,
        'no workflow task failed',
      );

      const count = (predicate: (answer: Answer) => boolean) => answers.filter(predicate).length;
      tally.push({
        round,
        mode,
        winner: `${winner.decision} by ${winner.decided_by}`,
        accepted: accepted.length,
        lost: count((a) => typeof a === 'object' && !a.accepted && a.reason === 'already_decided'),
        refused: count((a) => typeof a === 'object' && !a.accepted && a.reason !== 'already_decided'),
        closed: count((a) => a === 'closed'),
        signals: count((a) => a === 'signalled'),
        ms,
      });
    },
  );
}

test('race summary', () => {
  assert.equal(tally.length, ROUNDS);
  process.stdout.write(
    `\napproval races (${ROUNDS} rounds × ${DECISIONS_PER_ROUND} decisions):\n${tally
      .map(
        (t) =>
          `  round ${t.round} (${t.mode}): ${t.winner} won; updates accepted ${t.accepted}, told they lost ${t.lost}, refused ${t.refused}, after close ${t.closed}; signals ${t.signals}; decided and finished in ${t.ms} ms`,
      )
      .join('\n')}\n`,
  );
});
