import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditDigest, requestDigest, verifyAudit, type TrustedCallInputs } from '../../src/contract/bindings.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import { sha256Hex } from '../../src/contract/sha256.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning, sampleOrder } from '../support/tools.js';

const tool = orderTool(returning(goodOrderOutput()));
const args = { order_id: 'ord_1001' };

function trustedFor(ctx: ExecutionContext, callArgs: unknown = args): TrustedCallInputs {
  return {
    principal: ctx.principal,
    tool,
    arguments: callArgs,
    provider: ctx.provider,
    callId: ctx.callId,
    operationId: ctx.operationId,
    idempotencyKey: ctx.idempotencyKey,
  };
}

async function run(ctx: ExecutionContext, output = goodOrderOutput()): Promise<ToolExecution> {
  return executeTool(orderTool(returning(output)), args, ctx);
}

describe('bindings', () => {
  it('an untouched record verifies', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted: trustedFor(ctx) }), { ok: true, failed: [] });
  });

  it("swapping two calls' results fails the result and call bindings", async () => {
    const ctxA = testContext({ callId: 'call-A', idempotencyKey: 'idem-key-A-000000' });
    const ctxB = testContext({ callId: 'call-B', idempotencyKey: 'idem-key-B-000000' });
    const a = await run(ctxA);
    const b = await run(ctxB, { ...goodOrderOutput(), data: { ...sampleOrder, status: 'shipped' } });
    const swapped = verifyAudit({ modelResult: b.modelResult, audit: a.audit, trusted: trustedFor(ctxA) });
    assert.equal(swapped.ok, false);
    assert.deepEqual(swapped.failed, ['result', 'call_binding']);
  });

  it('changing only the idempotency key fails the call binding (and the readable key), never the request', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    const verdict = verifyAudit({
      modelResult,
      audit,
      trusted: { ...trustedFor(ctx), idempotencyKey: 'idem-someone-else' },
    });
    assert.deepEqual(verdict.failed, ['identity', 'call_binding']);
    const relabelled = { ...audit, idempotency_key: 'idem-someone-else' };
    const forged = verifyAudit({
      modelResult,
      audit: relabelled,
      trusted: { ...trustedFor(ctx), idempotencyKey: 'idem-someone-else' },
    });
    assert.deepEqual(
      forged.failed,
      ['call_binding'],
      'relabelling the readable key alone cannot make the digest match',
    );
  });

  it('editing any business field of the model result fails verification', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    const edited = { ...modelResult, data: { ...(modelResult.data as object), total_cents: 1 } };
    assert.deepEqual(verifyAudit({ modelResult: edited, audit, trusted: trustedFor(ctx) }).failed, [
      'result',
      'call_binding',
    ]);
    const editedStatus = { ...modelResult, status: 'partial' as const };
    assert.equal(verifyAudit({ modelResult: editedStatus, audit, trusted: trustedFor(ctx) }).ok, false);
  });

  it('a forged but well-formed digest fails: nothing is taken from the audit on trust', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    const forged = { ...audit, bindings: { ...audit.bindings, request_sha256: 'a'.repeat(64) } };
    assert.deepEqual(verifyAudit({ modelResult, audit: forged, trusted: trustedFor(ctx) }).failed, ['request']);
  });

  it('different arguments or a different principal fail the request binding', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    assert.ok(
      verifyAudit({ modelResult, audit, trusted: trustedFor(ctx, { order_id: 'ord_9999' }) }).failed.includes(
        'request',
      ),
    );
    const otherPrincipal = { ...trustedFor(ctx), principal: { tenant: 'tenant-acme', subject: 'user-intruder' } };
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted: otherPrincipal }).failed, [
      'principal',
      'request',
      'call_binding',
    ]);
  });

  it('a new call id for the same intent keeps request_sha256 but changes the call binding', async () => {
    const first = await run(testContext());
    const second = await run(testContext({ callId: 'call-0002', idempotencyKey: 'idem-wf-42-call-0002', attempt: 2 }));
    assert.equal(first.audit.bindings.request_sha256, second.audit.bindings.request_sha256);
    assert.notEqual(first.audit.bindings.call_binding_sha256, second.audit.bindings.call_binding_sha256);
    assert.equal(first.audit.bindings.request_sha256, requestDigest(testContext().principal, tool, args));
  });

  it('a tampered audit that no longer matches its schema is reported', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    const broken = { ...audit, bindings: { ...audit.bindings, result_sha256: 'not-hex' } };
    const verdict = verifyAudit({ modelResult, audit: broken, trusted: trustedFor(ctx) });
    assert.deepEqual(verdict.failed, ['audit_schema', 'result']);
  });
});

describe('bindings: relabelled records', () => {
  it('a different provider call id fails the call binding', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    const trusted = { ...trustedFor(ctx), provider: { ...ctx.provider, providerCallId: 'call_other' } };
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted }).failed, ['identity', 'call_binding']);
  });

  it('editing a readable audit field (status, tool, provider call id) fails the identity check', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    for (const edited of [
      { ...audit, status: 'failed' as const },
      { ...audit, tool: 'orders.other' },
      { ...audit, provider: { ...audit.provider, provider_call_id: 'call_forged' } },
    ]) {
      assert.deepEqual(verifyAudit({ modelResult, audit: edited, trusted: trustedFor(ctx) }).failed, ['identity']);
    }
  });
});

describe('bindings: the whole record (audit_sha256)', () => {
  it('any field of the record changed since its audit_sha256 was recorded fails the audit check, and only that one', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    const recorded = auditDigest(audit);
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted: trustedFor(ctx), auditSha256: recorded }), {
      ok: true,
      failed: [],
    });
    const edits = [
      { ...audit, downstream: { ...audit.downstream, receipt_external_id: 'ch_attacker' } },
      { ...audit, raw_response_sha256: 'a'.repeat(64) },
      { ...audit, validation: audit.validation.slice(1) },
      { ...audit, timings: { ...audit.timings, total_ms: audit.timings.total_ms + 1 } },
      { ...audit, redactions: [...audit.redactions, { path: '/data/note', reason: 'sensitive_field' }] },
    ];
    for (const edited of edits) {
      assert.notDeepEqual(edited, audit);
      // The three bindings do not see these fields: only the digest of the whole record does.
      assert.deepEqual(verifyAudit({ modelResult, audit: edited, trusted: trustedFor(ctx) }), { ok: true, failed: [] });
      assert.deepEqual(
        verifyAudit({ modelResult, audit: edited, trusted: trustedFor(ctx), auditSha256: recorded }).failed,
        ['audit'],
      );
    }
  });

  it('a forged but well-formed audit_sha256 proves nothing', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await run(ctx);
    assert.deepEqual(
      verifyAudit({ modelResult, audit, trusted: trustedFor(ctx), auditSha256: 'f'.repeat(64) }).failed,
      ['audit'],
    );
  });

  it('is SHA-256 over the canonical JSON of the record: the bytes the store keeps', async () => {
    const { audit } = await run(testContext());
    assert.equal(auditDigest(audit), sha256Hex(canonicalJson(audit)));
  });
});
