import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { defineTool, executeTool } from '../../src/index.js';
import { cutText, utf8ByteLength } from '../../src/contract/truncation.js';
import { testContext } from '../support/context.js';
import { listTool } from '../support/tools.js';

const ctx = testContext();

describe('budgets and truncation', () => {
  it('cuts whole items to the item budget and continues by offset; available_items stays the real count', async () => {
    const result = await executeTool(listTool(50, { maxItems: 10 }), { query: 'x' }, ctx);
    const model = result.modelResult;
    assert.equal(model.status, 'partial');
    assert.equal((model.data as { items: unknown[] }).items.length, 10);
    assert.deepEqual(model.completeness, { state: 'truncated', returned_items: 10, available_items: 50, next: { type: 'offset', value: 10 }, reason: 'item_or_byte_budget' });
    assert.match(model.artifact!.artifact_id, /^art_[0-9a-f]{64}$/);
    assert.equal(result.artifacts[0]!.sha256, model.artifact!.artifact_id.slice(4));
  });

  it('cuts by bytes with whole items and stays within the byte budget', async () => {
    const result = await executeTool(listTool(5_000, { maxBytes: 4096, maxItems: 5_000 }), { query: 'x' }, ctx);
    const size = utf8ByteLength(JSON.stringify(result.modelResult));
    assert.ok(size <= 4096, `${size} bytes`);
    const items = (result.modelResult.data as { items: { id: string }[] }).items;
    assert.ok(items.length > 0 && items.length < 5_000);
    assert.deepEqual(items.map((item) => item.id), items.map((_, i) => `it_${i}`), 'whole items, in order, none cut in half');
    assert.equal(result.modelResult.completeness.returned_items, items.length);
  });

  it('a complete small listing says complete with exact counts', async () => {
    const result = await executeTool(listTool(3), { query: 'x' }, ctx);
    assert.deepEqual(result.modelResult.completeness, { state: 'complete', returned_items: 3, available_items: 3, next: null });
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(result.artifacts.length, 0);
  });

  it('an empty listing is complete with zero items (zero is a count here, not "unknown")', async () => {
    const result = await executeTool(listTool(0), { query: 'x' }, ctx);
    assert.deepEqual(result.modelResult.completeness, { state: 'complete', returned_items: 0, available_items: 0, next: null });
  });

  it('cuts text at code points with a visible marker, never inside a surrogate pair', () => {
    assert.equal(cutText('abcdef', 3), 'abc…[truncated 3 chars]');
    assert.equal(cutText('😀😀😀', 2), '😀😀…[truncated 1 chars]');
    assert.equal(cutText('short', 10), 'short');
  });

  it('measures UTF-8 like TextEncoder', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a\ud800b']) assert.equal(utf8ByteLength(text), new TextEncoder().encode(text).byteLength, text);
  });
});

describe('results without data', () => {
  it('a tool whose schema is null succeeds as complete with zero items (regression: was TOOL_ERROR)', async () => {
    const ping = defineTool({
      name: 'health.ping',
      description: 'Ping.',
      input: z.strictObject({}),
      output: z.null(),
      effect: 'read',
      source: { label: 'self', type: 'internal' },
      handler: () => Promise.resolve({ data: null }),
    });
    const result = await executeTool(ping, {}, ctx);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(result.modelResult.completeness, { state: 'complete', returned_items: 0, available_items: 0, next: null });
  });
});
