// Many decisions racing for one call that awaits approval: approvals and rejections, by update and by signal, some
// for the wrong request digest, many duplicates — exactly one decision takes effect, and the tool runs at most once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { APPROVAL_SIGNAL, APPROVAL_UPDATE, PENDING_APPROVALS_QUERY } from '../../../src/wire/names.js';
import type { ApprovalDecision, ApprovalUpdateResult, PendingApproval, ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const ROUNDS = 6;
const DECISIONS_PER_ROUND = 50;

/** How one decision was sent and what it said. */
interface Racer {
  readonly via: 'update' | 'signal';
  readonly decision: ApprovalDecision;
  readonly validDigest: boolean;
}

/** What the workflow answered a racer. */
type Answer = 'accepted' | 'duplicate' | 'refused_invalid' | 'refused_closed' | 'signalled';

const stack = useRuntimeHarness('rel-approval-races');

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
 * worker round trip), so `mixed` rounds are decided by a signal; `updates` rounds race updates only, where exactly
 * one must be told "accepted".
 */
type RoundMode = 'mixed' | 'updates';

function racers(pending: PendingApproval, random: () => number, mode: RoundMode): Racer[] {
  return Array.from({ length: DECISIONS_PER_ROUND }, (_, i) => {
    const validDigest = random() > 0.2;
    const decision: ApprovalDecision = {
      callId: pending.callId,
      requestSha256: validDigest ? pending.preview.requestSha256 : 'e'.repeat(64),
      decision: random() > 0.5 ? 'approve' : 'reject',
      approver: `approver-${i % 7}@example.com`,
      reason: `racer ${i}`,
    };
    return { via: mode === 'updates' || random() > 0.5 ? 'update' : 'signal', decision, validDigest };
  });
}

async function send(handle: WorkflowHandle, racer: Racer): Promise<Answer> {
  try {
    if (racer.via === 'signal') {
      await handle.signal(APPROVAL_SIGNAL, racer.decision);
      return 'signalled';
    }
    const answer = await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, { args: [racer.decision] });
    return answer.accepted ? 'accepted' : 'duplicate';
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === 'APPROVAL_INVALID') return 'refused_invalid';
    // A decision that arrives as (or after) the workflow closes is refused by the server: the call was decided.
    if (error instanceof WorkflowNotFoundError) return 'refused_closed';
    throw error;
  }
}

const tally: { round: number; mode: RoundMode; winner: string; accepted: number; duplicates: number; invalid: number; closed: number; signals: number; ms: number }[] = [];

for (let round = 1; round <= ROUNDS; round++) {
  const mode: RoundMode = round % 2 === 0 ? 'updates' : 'mixed';
  test(`round ${round} (${mode}): ${DECISIONS_PER_ROUND} concurrent decisions, exactly one takes effect`, { timeout: 120_000 }, async () => {
    const { client } = stack.temporal;
    const paymentId = `pay_race_${round}`;
    const workflowId = `approval-race-${round}`;
    const handle = await client.workflow.start('runToolCall', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [TOOLS.refund, { payment_id: paymentId, customer: 'cus_1', amount_cents: 700 }, { principal }],
    });
    const pending = await eventually('a pending approval', async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0]);
    const mix = racers(pending, seeded(round * 7919), mode);
    const started = Date.now();
    const answers = await Promise.all(mix.map((racer) => send(handle, racer)));
    const { modelResult } = (await handle.result()) as ToolCallResult;
    const ms = Date.now() - started;

    // Wrong digests never count: the update refuses them (APPROVAL_INVALID) before and after the call is decided.
    for (const [i, racer] of mix.entries()) {
      if (!racer.validDigest && racer.via === 'update') assert.ok(['refused_invalid', 'refused_closed'].includes(answers[i]!), `racer ${i}: ${answers[i]}`);
    }
    const acceptedUpdates = mix.filter((_, i) => answers[i] === 'accepted');
    assert.ok(acceptedUpdates.length <= 1, `${acceptedUpdates.length} updates were told they decided the call`);
    if (mode === 'updates') assert.equal(acceptedUpdates.length, 1, 'with updates only, exactly one is told it decided the call');

    // The outcome is one valid decision's; if an update was told "accepted", it is that one.
    const approved = modelResult.status === 'succeeded';
    const winner: ApprovalDecision['decision'] = approved ? 'approve' : 'reject';
    if (!approved) assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');
    if (acceptedUpdates[0]) assert.equal(acceptedUpdates[0].decision.decision, winner, 'the accepted update is the effective decision');
    else assert.ok(mix.some((r) => r.via === 'signal' && r.validDigest && r.decision.decision === winner), 'a valid signal decided the call');

    // Exactly one effective decision recorded, and the tool ran exactly once iff it was an approval.
    const audits = await stack.store.listAudits({ workflowId });
    assert.equal(audits.length, 1, 'one audited outcome for the call');
    assert.equal(audits[0]!.audit.error_code, approved ? null : 'APPROVAL_REJECTED');
    const key = chargeKey(principal.tenant, paymentId, TOOLS.refund);
    assert.equal(stack.payments.dispatches(key), approved ? 1 : 0, 'the refund ran at most once, and only when approved');
    assert.equal(stack.payments.commits(key), approved ? 1 : 0);
    const history = await handle.fetchHistory();
    assert.equal((history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length, 0, 'no workflow task failed');

    const count = (answer: Answer) => answers.filter((a) => a === answer).length;
    tally.push({ round, mode, winner, accepted: count('accepted'), duplicates: count('duplicate'), invalid: count('refused_invalid'), closed: count('refused_closed'), signals: count('signalled'), ms });
  });
}

test('race summary', () => {
  assert.equal(tally.length, ROUNDS);
  process.stdout.write(`\napproval races (${ROUNDS} rounds × ${DECISIONS_PER_ROUND} decisions):\n${tally.map((t) => `  round ${t.round} (${t.mode}): ${t.winner} won; updates accepted ${t.accepted}, duplicate ${t.duplicates}, refused invalid ${t.invalid}, refused after close ${t.closed}; signals ${t.signals}; decided and finished in ${t.ms} ms`).join('\n')}\n`);
});
