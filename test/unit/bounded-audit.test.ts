import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolError } from '../../src/index.js';
import { auditRecordSchema } from '../../src/contract/audit-record.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import {
  MAX_AUDIT_BYTES,
  MAX_AUDIT_REDACTIONS,
  MAX_REDACTION_PATH_CHARS,
} from '../../src/contract/funnel/audit-bounds.js';
import { MAX_TRUSTED_VALUE_CHARS } from '../../src/contract/funnel/recordable-context.js';
import { codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { orderTool, returning } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();

function auditBytes(result: ToolExecution): number {
  return Buffer.byteLength(canonicalJson(result.audit), 'utf8');
}

function assertStorable(result: ToolExecution): void {
  assert.ok(auditRecordSchema.safeParse(result.audit).success, 'audit violates tool-result.audit.v1');
  assert.ok(auditBytes(result) <= MAX_AUDIT_BYTES, `audit is ${auditBytes(result)} bytes`);
}

/** A read tool returning `data` under a permissive schema. */
function notesTool(
  data: unknown,
  overrides: { revisions?: { handler: string }; effect?: 'read' | 'write'; receipt?: { externalId: string } } = {},
) {
  return defineTool({
    name: 'notes.get',
    description: 'Notes.',
    input: z.strictObject({}),
    output: z.record(z.string(), z.array(z.string())),
    effect: overrides.effect ?? 'read',
    source: { label: 'notes', type: 'database' },
    budget: { maxItems: 5000 },
    ...(overrides.revisions ? { revisions: overrides.revisions } : {}),
    handler: returning({ data, ...(overrides.receipt ? { receipt: overrides.receipt } : {}) }),
  });
}

describe('bounded audit: one small result cannot make a huge audit record', () => {
  it('regression: 2,800 secret-like strings under a 20 KB key give a small audit (was 56 MB)', async () => {
    const key = 'k'.repeat(20_000);
    const data = { [key]: Array.from({ length: 2800 }, (_, i) => `sk-live-${String(i).padStart(20, '0')}`) };
    const result = await executeTool(notesTool(data), {}, ctx);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.ok(auditBytes(result) < 20_000, `audit is ${auditBytes(result)} bytes`);
    const { redactions } = result.audit;
    assert.equal(redactions.length, MAX_AUDIT_REDACTIONS + 1);
    assert.deepEqual(redactions.at(-1), { path: '…', reason: `more:${2800 - MAX_AUDIT_REDACTIONS}` });
    assert.ok(redactions.every((record) => record.path.length <= MAX_REDACTION_PATH_CHARS));
    // The layer log still counts every removal.
    assert.match(result.audit.validation.find((l) => l.layer === 'redaction')!.reason!, /^2800 /);
    assertStorable(result);
  });

  it('long paths that share a prefix stay distinguishable', async () => {
    const data = {
      [`${'k'.repeat(300)}a`]: ['sk-live-aaaaaaaaaaaaaaaaaaaa'],
      [`${'k'.repeat(300)}b`]: ['sk-live-bbbbbbbbbbbbbbbbbbbb'],
    };
    const result = await executeTool(notesTool(data), {}, ctx);
    const paths = result.audit.redactions.map((record) => record.path);
    assert.equal(paths.length, 2);
    assert.notEqual(paths[0], paths[1]);
  });

  it('a failure whose detail would overflow the bound keeps its code; the detail is previewed', async () => {
    const details = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`field_${i}`, 'x'.repeat(10)]));
    const result = await executeTool(
      orderTool(() => Promise.reject(new ToolError('NOT_FOUND', details))),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(codeOf(result), 'NOT_FOUND');
    const detail = result.audit.error_detail as { code: string; detail: { omitted: string; detail_bytes: number } };
    assert.equal(detail.code, 'NOT_FOUND');
    assert.equal(detail.detail.omitted, 'audit_too_large');
    assert.ok(detail.detail.detail_bytes > MAX_AUDIT_BYTES);
    assertStorable(result);
  });

  it('an error detail too deep for canonical JSON still gives a storable audit', async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 1500; i++) deep = { nested: deep };
    const result = await executeTool(
      orderTool(() => Promise.reject(new ToolError('NOT_FOUND', deep))),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(codeOf(result), 'NOT_FOUND');
    assertStorable(result);
  });

  it('a successful result whose audit cannot fit is refused as OUTPUT_CONTRACT_VIOLATION; a committed write keeps its receipt', async () => {
    const tool = notesTool(
      { a: ['b'] },
      { revisions: { handler: 'h'.repeat(70_000) }, effect: 'write', receipt: { externalId: 'rcpt_9' } },
    );
    const result = await executeTool(tool, {}, ctx);
    assert.equal(codeOf(result), 'OUTPUT_CONTRACT_VIOLATION');
    assert.equal(result.modelResult.status, 'partial');
    assert.equal(result.modelResult.execution.outcome, 'committed');
    assert.equal(result.modelResult.execution.receipt!.external_id, 'rcpt_9');
    assert.equal(result.audit.validation.find((l) => l.layer === 'budget')!.outcome, 'failed');
    assert.equal((result.audit.error_detail as { detail: { reason: string } }).detail.reason, 'audit_too_large');
    assertStorable(result);
  });

  it('a trusted value too long to record is refused like one with a lone surrogate, and recorded bounded', async () => {
    const result = await executeTool(
      orderTool(returning({})),
      { order_id: 'ord_1001' },
      testContext({ idempotencyKey: 'k'.repeat(10_000) }),
    );
    assert.equal(codeOf(result), 'TOOL_ERROR');
    assert.equal(result.modelResult.execution.outcome, 'not_started');
    assert.equal(result.audit.idempotency_key.length, MAX_TRUSTED_VALUE_CHARS);
    assertStorable(result);
  });
});
