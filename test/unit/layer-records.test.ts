import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHttpJson } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { sha256Hex } from '../../src/contract/sha256.js';
import { type AuditRecord, type LayerOutcome } from '../../src/contract/audit-record.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, refundTool, returning } from '../support/tools.js';

const ctx = testContext();

function layer(audit: AuditRecord, name: LayerOutcome['layer']): LayerOutcome {
  const found = audit.validation.find((entry) => entry.layer === name);
  assert.ok(found, `layer ${name} is in the audit`);
  return found;
}

const loginPage = '<html><body>Please sign in</body></html>';
const serveLoginPage = () =>
  Promise.resolve(readHttpJson({ status: 200, headers: { 'content-type': 'text/html' }, body: loginPage })) as never;

describe('layer records say what each layer decided', () => {
  it('a PROTOCOL_ERROR thrown by readHttpJson fails the protocol layer, with the digest of the refused body', async () => {
    const result = await executeTool(orderTool(serveLoginPage), { order_id: 'ord_1001' }, ctx);
    assert.equal(result.modelResult.error?.code, 'PROTOCOL_ERROR');
    assert.deepEqual(layer(result.audit, 'protocol'), {
      layer: 'protocol',
      outcome: 'failed',
      rule_version: 'http-json@2',
      reason: 'response is not declared as JSON',
    });
    assert.equal(layer(result.audit, 'side_effect').outcome, 'skipped');
    assert.equal(result.audit.raw_response_sha256, sha256Hex(loginPage));
    assert.equal(result.audit.raw_response_bytes, loginPage.length);
    assert.equal((result.audit.error_detail as { layer: string }).layer, 'protocol');
    assert.equal(result.modelResult.error?.layer, 'protocol', 'the model is told the same stage as the audit');
  });

  it('a write refused at the protocol layer stays OUTCOME_UNKNOWN to the model, and the audit says where it failed', async () => {
    const result = await executeTool(refundTool(serveLoginPage), { order_id: 'ord_1', amount_cents: 500 }, ctx);
    assert.equal(result.modelResult.status, 'unknown');
    assert.equal(result.modelResult.error?.code, 'OUTCOME_UNKNOWN');
    assert.equal(layer(result.audit, 'protocol').outcome, 'failed');
    assert.equal(result.audit.raw_response_sha256, sha256Hex(loginPage));
  });

  it('a status refusal (404) keeps the body digest without failing the protocol layer', async () => {
    const notFound = '{"error":"no such order"}';
    const handler = () =>
      Promise.resolve(
        readHttpJson({ status: 404, headers: { 'content-type': 'application/json' }, body: notFound }),
      ) as never;
    const result = await executeTool(orderTool(handler), { order_id: 'ord_1001' }, ctx);
    assert.equal(result.modelResult.error?.code, 'NOT_FOUND');
    assert.equal(layer(result.audit, 'protocol').outcome, 'skipped');
    assert.equal(result.audit.raw_response_sha256, sha256Hex(notFound));
  });

  it('stale data let through in warn mode makes the evidence layer warned, not passed', async () => {
    const stale = goodOrderOutput('2026-01-01T00:00:00Z');
    const warned = await executeTool(
      orderTool(returning(stale), { freshness: { maxAgeMs: 60_000, onStale: 'warn' } }),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(warned.modelResult.status, 'succeeded');
    const evidence = layer(warned.audit, 'evidence');
    assert.equal(evidence.outcome, 'warned');
    assert.match(evidence.reason ?? '', /STALE_DATA/);
    const fresh = await executeTool(
      orderTool(returning(goodOrderOutput()), { freshness: { maxAgeMs: 60_000, onStale: 'warn' } }),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(layer(fresh.audit, 'evidence').outcome, 'passed');
  });

  it('data of unknown age and unresolved conflicts warn too', async () => {
    const ageless = { ...goodOrderOutput(), observedAt: undefined };
    const unknownAge = await executeTool(orderTool(returning(ageless)), { order_id: 'ord_1001' }, ctx);
    assert.equal(layer(unknownAge.audit, 'evidence').outcome, 'warned');
    const conflicting = {
      ...goodOrderOutput(),
      conflicts: [
        {
          field: '/status',
          values: [
            { value: 'paid', source: 'orders-db' },
            { value: 'shipped', source: 'orders-replica' },
          ],
        },
      ],
    };
    const conflicted = await executeTool(orderTool(returning(conflicting)), { order_id: 'ord_1001' }, ctx);
    assert.match(layer(conflicted.audit, 'evidence').reason ?? '', /CONFLICTING_SOURCES/);
  });
});
