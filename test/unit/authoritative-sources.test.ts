import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolDefinitionError } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';

/** Seed 000 §8's stock: two warehouses disagree; the tool may name the source that decides. */
const stock = (values: { value: number; source: string }[], authoritativeSources?: Record<string, string>) =>
  defineTool({
    name: 'stock.get',
    description: 'The stock of one product.',
    input: z.strictObject({ sku: z.string() }),
    output: z.strictObject({ sku: z.string(), stock: z.number().int().nonnegative() }),
    effect: 'read',
    source: { label: 'warehouse_a', type: 'database', allowlist: ['erp', 'warehouse_b'] },
    ...(authoritativeSources === undefined ? {} : { authoritativeSources }),
    invariants: [{ id: 'non-negative', version: 1, check: (data) => data.stock >= 0 }],
    handler: (args) =>
      Promise.resolve({ data: { sku: args.sku, stock: values[0]!.value }, conflicts: [{ field: '/stock', values }] }),
  });

describe('a source conflict switches to the authoritative source the tool names (seed 004)', () => {
  it('without an authority the conflict is reported unresolved, with a warning', async () => {
    const { modelResult } = await executeTool(
      stock([
        { value: 10, source: 'warehouse_a' },
        { value: 0, source: 'erp' },
      ]),
      { sku: 'sku_1' },
      testContext(),
    );
    assert.deepEqual(
      [(modelResult.data as { stock: number }).stock, modelResult.conflicts[0]?.resolution],
      [10, 'unresolved'],
    );
    assert.ok(modelResult.warnings.some((warning) => warning.code === 'CONFLICTING_SOURCES'));
  });

  it("with one, the data takes the authority's value — validated like any other — and the conflict says who decided", async () => {
    const { modelResult, audit } = await executeTool(
      stock(
        [
          { value: 10, source: 'warehouse_a' },
          { value: 0, source: 'erp' },
        ],
        { '/stock': 'erp' },
      ),
      { sku: 'sku_1' },
      testContext(),
    );
    assert.equal((modelResult.data as { stock: number }).stock, 0);
    assert.deepEqual(
      [modelResult.conflicts[0]?.resolution, modelResult.conflicts[0]?.rule],
      ['authoritative', 'source:erp'],
    );
    assert.deepEqual(modelResult.warnings, []);
    assert.equal(audit.validation.find((layer) => layer.layer === 'evidence')?.outcome, 'passed');
  });

  it("the authority's value is checked like the handler's: one the schema refuses fails the call", async () => {
    const { modelResult } = await executeTool(
      stock(
        [
          { value: 10, source: 'warehouse_a' },
          { value: -3, source: 'erp' },
        ],
        { '/stock': 'erp' },
      ),
      { sku: 'sku_1' },
      testContext(),
    );
    assert.equal(modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
  });

  it('a conflict without the authority among its sources stays unresolved; a bad declaration is refused', async () => {
    const { modelResult } = await executeTool(
      stock(
        [
          { value: 10, source: 'warehouse_a' },
          { value: 7, source: 'warehouse_b' },
        ],
        { '/stock': 'erp' },
      ),
      { sku: 'sku_1' },
      testContext(),
    );
    assert.deepEqual(
      [(modelResult.data as { stock: number }).stock, modelResult.conflicts[0]?.resolution],
      [10, 'unresolved'],
    );
    assert.throws(() => stock([], { stock: 'erp' }), ToolDefinitionError);
  });
});
