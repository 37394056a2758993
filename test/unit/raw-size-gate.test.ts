import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import { inspectJson } from '../../src/contract/json-shape.js';
import { codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { returning } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();

function wideObject(members: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: members }, (_, i) => [`key_${i}`, i]));
}

function layer(result: ToolExecution, name: string): { outcome: string } {
  return result.audit.validation.find((l) => l.layer === name)!;
}

/** The over-budget result: partial, no data, the full data kept as an artifact. */
function assertOverBudget(result: ToolExecution, data: unknown): void {
  assert.equal(codeOf(result), null);
  assert.equal(result.modelResult.status, 'partial');
  assert.equal(result.modelResult.data, null);
  assert.equal(result.modelResult.completeness.state, 'truncated');
  assert.ok(result.modelResult.completeness.reason!.split(',').includes('over_byte_budget'));
  assert.equal(result.artifacts.length, 1);
  assert.equal(result.artifacts[0]!.body, canonicalJson(data));
  assert.equal(result.modelResult.artifact!.bytes, result.artifacts[0]!.bytes);
}

describe('inspectJson measures what it checks', () => {
  it('counts every value and the widest object outside any list', () => {
    const shape = inspectJson({ a: 1, b: [{ x: 1, y: 2, z: 3 }, 'text'], c: { d: null } }, 8);
    assert.ok(shape.ok);
    // root, 1, the list, its object, 1, 2, 3, 'text', c's object, null
    assert.deepEqual(shape.size, { values: 10, widestObjectOutsideLists: 3 });
  });
});

describe('raw size gate: a result far over its budget goes straight to the over-budget result', () => {
  const recordTool = (data: unknown, output: z.ZodType = z.record(z.string(), z.number())) =>
    defineTool({
      name: 'attrs.get',
      description: 'Attributes.',
      input: z.strictObject({}),
      output,
      effect: 'read',
      source: { label: 'attrs', type: 'database' },
      budget: { maxBytes: 2048 },
      handler: returning({ data }),
    });

  it('an object wider than the budget can hold: no data, artifact kept, schema and invariants skipped', async () => {
    const data = wideObject(600);
    const result = await executeTool(recordTool(data), {}, ctx);
    assertOverBudget(result, data);
    assert.equal(layer(result, 'schema').outcome, 'skipped');
    assert.equal(layer(result, 'semantics').outcome, 'skipped');
    assert.equal(layer(result, 'budget').outcome, 'warned');
  });

  it('a list with far more values than could be shown (8 per byte of budget)', async () => {
    const data = { ids: Array.from({ length: 20_000 }, (_, i) => i) };
    const tool = defineTool({
      name: 'ids.list',
      description: 'Ids.',
      input: z.strictObject({}),
      output: z.strictObject({ ids: z.array(z.number()) }),
      effect: 'read',
      source: { label: 'ids', type: 'database' },
      budget: { maxBytes: 2048, itemsPointer: '/ids' },
      handler: returning({ data }),
    });
    const result = await executeTool(tool, {}, ctx);
    assertOverBudget(result, data);
    assert.equal(result.modelResult.completeness.available_items, 20_000);
    assert.equal(layer(result, 'schema').outcome, 'skipped');
  });

  it('a result just under both limits is validated and cut as usual', async () => {
    const data = { ids: Array.from({ length: 16_000 }, (_, i) => i) };
    const tool = defineTool({
      name: 'ids.list',
      description: 'Ids.',
      input: z.strictObject({}),
      output: z.strictObject({ ids: z.array(z.number()) }),
      effect: 'read',
      source: { label: 'ids', type: 'database' },
      budget: { maxBytes: 2048, maxItems: 20_000, itemsPointer: '/ids' },
      handler: returning({ data }),
    });
    const result = await executeTool(tool, {}, ctx);
    assert.equal(layer(result, 'schema').outcome, 'passed');
    assert.ok(result.modelResult.completeness.returned_items > 0);
  });

  it('nothing unvalidated is shown: a gated result that breaks its schema still shows no data', async () => {
    const data = { ...wideObject(600), bad: 'not a number' };
    const result = await executeTool(recordTool(data), {}, ctx);
    assertOverBudget(result, data);
  });

  it('the source allowlist and the receipt of a write still apply over the gate', async () => {
    const offList = defineTool({
      name: 'attrs.get',
      description: 'Attributes.',
      input: z.strictObject({}),
      output: z.record(z.string(), z.number()),
      effect: 'read',
      source: { label: 'attrs', type: 'database', allowlist: ['attrs'] },
      budget: { maxBytes: 2048 },
      handler: returning({ data: wideObject(600), sourceLabel: 'pastebin' }),
    });
    assert.equal(codeOf(await executeTool(offList, {}, ctx)), 'SOURCE_NOT_ALLOWED');
    const write = defineTool({
      name: 'attrs.set',
      description: 'Set attributes.',
      input: z.strictObject({}),
      output: z.record(z.string(), z.number()),
      effect: 'write',
      source: { label: 'attrs', type: 'database' },
      budget: { maxBytes: 2048 },
      handler: returning({ data: wideObject(600), receipt: { externalId: 'rcpt_1' } }),
    });
    const committed = await executeTool(write, {}, ctx);
    assert.equal(committed.modelResult.execution.outcome, 'committed');
    assert.equal(committed.modelResult.execution.receipt!.external_id, 'rcpt_1');
    assert.equal(committed.modelResult.data, null);
  });

  it('regression: a 200,000-key object result under the default budget skips the per-key passes', async () => {
    const data = wideObject(200_000);
    const tool = defineTool({
      name: 'attrs.get',
      description: 'Attributes.',
      input: z.strictObject({}),
      output: z.record(z.string(), z.number()),
      effect: 'read',
      source: { label: 'attrs', type: 'database' },
      handler: returning({ data }),
    });
    const result = await executeTool(tool, {}, ctx);
    assertOverBudget(result, data);
    assert.equal(layer(result, 'schema').outcome, 'skipped');
  });
});
