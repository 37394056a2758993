import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { principalRef } from '../../src/contract/principal-ref.js';
import { verifyAudit } from '../../src/contract/bindings.js';
import { MIN_PRINCIPAL_KEY_BYTES, parsePrincipalKey } from '../../src/contract/principal-ref.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning } from '../support/tools.js';

const KEY = 'unit-test-principal-key-0123456789abcdef';

/**
 * What anyone holding an audit row can do to an unkeyed reference: enumerate subjects of a known shape (here six
 * digits) under a known tenant until one hashes to the reference.
 */
function bruteForceSixDigitSubject(
  tenant: string,
  ref: string,
  deadlineMs: number,
  limit = 1_000_000,
): { subject: string | null; tried: number } {
  // The canonical text around the subject is fixed: an attacker computes it once.
  const [before = '', after = ''] = canonicalJson({ domain: 'ttc.principal.v1', tenant, subject: '\u0001' }).split(
    '\\u0001',
  );
  const started = performance.now();
  for (let n = 0; n < limit; n++) {
    const subject = String(n).padStart(6, '0');
    const candidate = createHash('sha256')
      .update(before + subject + after)
      .digest('hex');
    if (candidate === ref) return { subject, tried: n + 1 };
    if ((n & 0xfff) === 0 && performance.now() - started > deadlineMs) return { subject: null, tried: n + 1 };
  }
  return { subject: null, tried: limit };
}

describe('principal_ref', () => {
  it('without a key, a six-character subject is recovered from the reference by brute force', (t) => {
    const principal = { tenant: 'tenant-acme', subject: '104729' };
    const started = performance.now();
    // No time limit asserted (a loaded machine is slower, not safer): 104,730 hashes find it, a fraction of a second
    // on one core — the rate is printed.
    const found = bruteForceSixDigitSubject(principal.tenant, principalRef(principal), 60_000);
    const elapsed = performance.now() - started;
    t.diagnostic(
      `${found.tried} candidates in ${elapsed.toFixed(0)} ms (${Math.round(found.tried / (elapsed / 1000))} per second)`,
    );
    assert.equal(found.subject, principal.subject);
    assert.equal(found.tried, 104_730);
  });

  it('with a key, it is an HMAC: the same search finds nothing, and the reference differs from the plain digest', () => {
    const principal = { tenant: 'tenant-acme', subject: '104729' };
    const keyed = principalRef(principal, KEY);
    assert.match(keyed, /^[0-9a-f]{64}$/);
    assert.notEqual(keyed, principalRef(principal));
    // The candidates that found the subject above (and as many again) find nothing now.
    assert.equal(bruteForceSixDigitSubject(principal.tenant, keyed, 60_000, 200_000).subject, null);
    assert.equal(principalRef(principal, KEY), keyed, 'deterministic for one key');
    assert.notEqual(principalRef(principal, `${KEY}!`), keyed, 'another key, another reference');
    assert.equal(principalRef(principal, new TextEncoder().encode(KEY)), keyed, 'text keys are their UTF-8 bytes');
  });

  it('a recorded keyed reference verifies with the key only', async () => {
    const ctx = testContext({ principalKey: KEY });
    const tool = orderTool(returning(goodOrderOutput()));
    const { modelResult, audit } = await executeTool(tool, { order_id: 'ord_1001' }, ctx);
    assert.equal(audit.principal_ref, principalRef(ctx.principal, KEY));
    const trusted = {
      principal: ctx.principal,
      tool,
      arguments: { order_id: 'ord_1001' },
      provider: ctx.provider,
      callId: ctx.callId,
      operationId: ctx.operationId,
      idempotencyKey: ctx.idempotencyKey,
    };
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted: { ...trusted, principalKey: KEY } }), {
      ok: true,
      failed: [],
    });
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted }).failed, ['principal']);
    assert.ok(!JSON.stringify(audit).includes(KEY), 'the key is not in the audit');
  });

  it('a configured key shorter than 32 bytes is refused', () => {
    assert.throws(() => parsePrincipalKey('x'.repeat(MIN_PRINCIPAL_KEY_BYTES - 1)), RangeError);
    assert.equal(parsePrincipalKey('x'.repeat(MIN_PRINCIPAL_KEY_BYTES)).byteLength, MIN_PRINCIPAL_KEY_BYTES);
  });
});
