// A tool whose output is `{ <one array property> }` lists that array: counted, cut and continued there without an
// explicit budget.itemsPointer (issue 15). A record with an array among other fields stays one item.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { type ToolBudget } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

const item = z.strictObject({ id: z.string() });
const fifty = Array.from({ length: 50 }, (_, i) => ({ id: `i-${i}` }));

function listing(output: z.ZodType, data: unknown, budget: Partial<ToolBudget> = {}) {
  return defineTool({
    name: 'items.list',
    description: 'List the items.',
    input: z.strictObject({}),
    output,
    effect: 'read',
    source: { label: 'items', type: 'database' },
    budget,
    handler: async () => ({ data }),
  });
}

describe('the main list of an object holding one array', () => {
  it('counts the array as the list: 50 items, not one object', async () => {
    const tool = listing(z.strictObject({ items: z.array(item) }), { items: fifty });
    assert.equal(tool.budget.itemsPointer, '/items');
    const { modelResult } = await executeTool(tool, {}, testContext());
    assert.equal(modelResult.completeness.returned_items, 50);
    assert.equal(modelResult.completeness.available_items, 50);
    assert.equal(modelResult.completeness.state, 'complete');
  });

  it('cuts there when over the item budget (no continuation: the tool declares none)', async () => {
    const { modelResult } = await executeTool(
      listing(z.strictObject({ results: z.array(item).optional() }), { results: fifty }, { maxItems: 10 }),
      {},
      testContext(),
    );
    assert.equal(modelResult.completeness.returned_items, 10);
    assert.equal(modelResult.completeness.available_items, 50);
    assert.equal(modelResult.completeness.next, null);
    assert.equal((modelResult.data as { results: unknown[] }).results.length, 10);
  });

  it('keeps a record with an array among other fields as one item, and a declared pointer as declared', async () => {
    const order = listing(z.strictObject({ order_id: z.string(), lines: z.array(item) }), {
      order_id: 'o-1',
      lines: fifty,
    });
    assert.equal(order.budget.itemsPointer, undefined);
    assert.equal((await executeTool(order, {}, testContext())).modelResult.completeness.returned_items, 1);
    const declared = listing(
      z.strictObject({ page: z.strictObject({ rows: z.array(item) }) }),
      { page: { rows: fifty } },
      { itemsPointer: '/page/rows' },
    );
    assert.equal((await executeTool(declared, {}, testContext())).modelResult.completeness.returned_items, 50);
  });
});
