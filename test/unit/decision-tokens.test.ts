import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkDecision,
  type DecisionPolicy,
  type DecisionSubject,
  type SubmittedDecision,
} from '../../activities/check-decision.js';
import {
  DecisionKeyError,
  formatDecisionKey,
  generateDecisionKey,
  parseDecisionKey,
  signDecision,
  signedDecisions,
  verifyingKey,
  type ApprovalStatement,
  type DecisionKey,
} from '../../src/decisions/index.js';

const digest = 'a'.repeat(64);
const approval: ApprovalStatement = {
  kind: 'approval',
  workflowId: 'wf-1',
  runId: 'run-1',
  callId: 'call-1',
  requestSha256: digest,
  decision: 'approve',
  decidedBy: 'alice@example.com',
  note: 'ok',
};
const subject: DecisionSubject = {
  kind: 'approval',
  workflowId: 'wf-1',
  runId: 'run-1',
  callId: 'call-1',
  requestSha256: digest,
  principalSubject: 'user-42',
};
const now = Date.parse('2026-11-30T12:00:00Z');

function submitted(token: string | null, overrides: Partial<SubmittedDecision> = {}): SubmittedDecision {
  return {
    kind: 'approval',
    decision: 'approve',
    requestSha256: digest,
    token,
    claimedBy: null,
    note: null,
    ...overrides,
  } as SubmittedDecision;
}

function policy(keys: readonly DecisionKey[] | null, forbidSelfApproval = false): DecisionPolicy {
  return {
    verification:
      keys === null ? { kind: 'unauthenticated' } : { kind: 'signed', authenticator: signedDecisions({ keys }) },
    forbidSelfApproval,
  };
}

const check = (p: DecisionPolicy, s: SubmittedDecision, subj: DecisionSubject = subject, at = now) =>
  checkDecision(p, s, subj, { now: at, mintDecisionId: () => 'dec_minted' });

for (const algorithm of ['ed25519', 'hmac-sha256'] as const) {
  describe(`decision tokens (${algorithm})`, () => {
    const key = generateDecisionKey(algorithm, 'k1');
    const verifier = policy([verifyingKey(key)]);
    const token = signDecision(approval, key, { now: new Date(now) });

    it('a signed approval for exactly this call verifies and names its approver, method, key, time and id', async () => {
      const result = await check(verifier, submitted(token));
      assert.ok(result.ok);
      assert.equal(result.record.decided_by, 'alice@example.com');
      assert.equal(result.record.method, algorithm);
      assert.equal(result.record.key_id, 'k1');
      assert.equal(result.record.decided_at, new Date(now).toISOString());
      assert.match(result.record.decision_id, /^dec_[A-Za-z0-9_-]{22}$/);
      assert.equal(result.record.request_sha256, digest);
      assert.equal(result.record.note, 'ok');
    });

    it('refuses an unsigned decision, a tampered token and a token of another key', async () => {
      assert.deepEqual(await check(verifier, submitted(null, { claimedBy: 'ceo@example.com (forged)' })), {
        ok: false,
        reason: 'unsigned',
      });
      const [payload, signature] = token.split('.') as [string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const forgedPayload = Buffer.from(JSON.stringify({ ...claims, decidedBy: 'ceo@example.com' })).toString(
        'base64url',
      );
      assert.deepEqual(await check(verifier, submitted(`${forgedPayload}.${signature}`)), {
        ok: false,
        reason: 'bad_signature',
      });
      const impostor = signDecision(approval, generateDecisionKey(algorithm, 'k1'), { now: new Date(now) });
      assert.deepEqual(await check(verifier, submitted(impostor)), { ok: false, reason: 'bad_signature' });
      const unknown = signDecision(approval, generateDecisionKey(algorithm, 'k2'), { now: new Date(now) });
      assert.deepEqual(await check(verifier, submitted(unknown)), { ok: false, reason: 'unknown_key' });
      for (const junk of ['', 'x', 'a.b.c', `${payload}.`, 'é.é', `${'A'.repeat(5000)}.AA`])
        assert.deepEqual(await check(verifier, submitted(junk)), { ok: false, reason: 'bad_token' }, junk.slice(0, 20));
    });

    it('refuses a token for another workflow, run or call, for other arguments, or saying something else', async () => {
      for (const other of [{ workflowId: 'wf-2' }, { runId: 'run-2' }, { callId: 'call-2' }]) {
        assert.deepEqual(
          await check(verifier, submitted(token), { ...subject, ...other }),
          { ok: false, reason: 'binding_mismatch' },
          JSON.stringify(other),
        );
      }
      const otherArgs = signDecision({ ...approval, requestSha256: 'b'.repeat(64) }, key, { now: new Date(now) });
      assert.deepEqual(await check(verifier, submitted(otherArgs)), { ok: false, reason: 'digest_mismatch' });
      assert.deepEqual(await check(verifier, submitted(token, { decision: 'reject' })), {
        ok: false,
        reason: 'decision_mismatch',
      });
      assert.deepEqual(await check(verifier, submitted(token, { requestSha256: 'b'.repeat(64) })), {
        ok: false,
        reason: 'digest_mismatch',
      });
    });

    it('refuses an expired token, and one issued in the future; the tool activity may skip the expiry', async () => {
      assert.deepEqual(await check(verifier, submitted(token), subject, now + 16 * 60_000), {
        ok: false,
        reason: 'expired',
      });
      assert.deepEqual(await check(verifier, submitted(token), subject, now - 5 * 60_000), {
        ok: false,
        reason: 'expired',
      });
      const late = await checkDecision(verifier, submitted(token), subject, {
        now: now + 3600_000,
        checkExpiry: false,
        mintDecisionId: () => 'x',
      });
      assert.ok(late.ok);
    });

    it('refuses self-approval when the rule is on', async () => {
      const own = signDecision({ ...approval, decidedBy: 'User-42 ' }, key, { now: new Date(now) });
      assert.ok((await check(verifier, submitted(own))).ok, 'allowed while the rule is off');
      assert.deepEqual(await check(policy([verifyingKey(key)], true), submitted(own)), {
        ok: false,
        reason: 'self_approval',
      });
    });

    it('binds a resolution to its reconciliation run and key, with its outcome and external id', async () => {
      const resolution = signDecision(
        {
          kind: 'resolution',
          workflowId: 'ttc-reconcile:k',
          runId: 'r',
          idempotencyKey: 'k',
          decision: 'committed',
          externalId: 'ch_1',
          decidedBy: 'ops',
        },
        key,
        { now: new Date(now) },
      );
      const resolutionSubject: DecisionSubject = {
        kind: 'resolution',
        workflowId: 'ttc-reconcile:k',
        runId: 'r',
        idempotencyKey: 'k',
      };
      const sent = (externalId: string | null): SubmittedDecision => ({
        kind: 'resolution',
        decision: 'committed',
        externalId,
        token: resolution,
        claimedBy: null,
        note: null,
      });
      const ok = await check(verifier, sent('ch_1'), resolutionSubject);
      assert.ok(ok.ok);
      assert.equal(ok.record.external_id, 'ch_1');
      assert.deepEqual(await check(verifier, sent('FORGED-RECEIPT-123'), resolutionSubject), {
        ok: false,
        reason: 'decision_mismatch',
      });
      assert.deepEqual(await check(verifier, sent('ch_1'), { ...resolutionSubject, idempotencyKey: 'other' }), {
        ok: false,
        reason: 'binding_mismatch',
      });
      assert.deepEqual(await check(verifier, submitted(token), resolutionSubject), { ok: false, reason: 'malformed' });
    });

    it('writes and reads keys; the verifying half cannot sign; errors never show key material', () => {
      const signing = formatDecisionKey(key, 'signing');
      const pub = formatDecisionKey(key, 'public');
      assert.match(signing, new RegExp(`^${algorithm}:k1:[A-Za-z0-9_-]+$`));
      const reread = parseDecisionKey(signing);
      assert.ok((signedDecisions({ keys: [pub] }).authenticate(signDecision(approval, reread)) as { ok: boolean }).ok);
      if (algorithm === 'ed25519') {
        assert.notEqual(pub, signing);
        assert.throws(() => signDecision(approval, parseDecisionKey(pub)), DecisionKeyError);
      }
      const material = signing.split(':')[2] ?? '';
      for (const bad of [
        `${algorithm}:bad id:${material}`,
        `${algorithm}:k1:${material.slice(0, 20)}`,
        `rsa:k1:${material}`,
        material,
      ]) {
        assert.throws(
          () => parseDecisionKey(bad),
          (error: unknown) => error instanceof DecisionKeyError && !error.message.includes(material.slice(0, 16)),
        );
      }
    });
  });
}

describe('decisions taken unauthenticated (development only), or with nothing to verify them', () => {
  it('count as sent, recorded unauthenticated with a minted id; a nameless one is malformed', async () => {
    const result = await check(policy(null), submitted(null, { claimedBy: 'dev@example.com', note: 'fine' }));
    assert.deepEqual(result, {
      ok: true,
      record: {
        decision_id: 'dec_minted',
        kind: 'approval',
        decision: 'approve',
        decided_by: 'dev@example.com',
        method: 'unauthenticated',
        key_id: null,
        decided_at: new Date(now).toISOString(),
        request_sha256: digest,
        note: 'fine',
        external_id: null,
      },
    });
    assert.deepEqual(await check(policy(null), submitted(null)), { ok: false, reason: 'malformed' });
    assert.deepEqual(await check(policy(null, true), submitted(null, { claimedBy: 'user-42' })), {
      ok: false,
      reason: 'self_approval',
    });
  });

  it('count for nothing on a worker given no way to verify them, signed or not', async () => {
    const none: DecisionPolicy = { verification: { kind: 'none' }, forbidSelfApproval: false };
    assert.deepEqual(await check(none, submitted(null, { claimedBy: 'dev@example.com' })), {
      ok: false,
      reason: 'no_verifier',
    });
    assert.deepEqual(
      await check(
        none,
        submitted(signDecision(approval, generateDecisionKey('ed25519', 'k1'), { now: new Date(now) })),
      ),
      { ok: false, reason: 'no_verifier' },
    );
  });

  it('an authenticator that fails makes the decision unverifiable, not valid', async () => {
    const failing: DecisionPolicy = {
      verification: {
        kind: 'signed',
        authenticator: { authenticate: () => Promise.reject(new Error('identity provider down')) },
      },
      forbidSelfApproval: false,
    };
    assert.deepEqual(await check(failing, submitted('x.y')), { ok: false, reason: 'verification_failed' });
  });
});
