import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { executeTool } from '../../src/contract/execute-tool.js';
import {
  cutText,
  limitStructure,
  truncationMarker,
  utf8ByteLength,
  type TruncationNote,
} from '../../src/contract/truncation.js';
import { testContext } from '../../testkit/context.js';
import { listTool } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();

describe('budgets and truncation', () => {
  it('cuts whole items to the item budget; available_items stays the real count; no next without a declared continuation', async () => {
    const result = await executeTool(listTool(50, { maxItems: 10 }), { query: 'x' }, ctx);
    const model = result.modelResult;
    assert.equal(model.status, 'partial');
    assert.equal((model.data as { items: unknown[] }).items.length, 10);
    const { notice, ...completeness } = model.completeness;
    assert.deepEqual(completeness, {
      state: 'truncated',
      returned_items: 10,
      available_items: 50,
      next: null,
      reason: 'item_or_byte_budget',
      range: { from: 1, to: 10, of: 50 },
    });
    assert.ok(notice !== undefined, 'a cut listing tells the model what it shows');
    assert.match(model.artifact!.artifact_id, /^art_[0-9a-f]{64}$/);
    assert.equal(result.artifacts[0]!.sha256, model.artifact!.artifact_id.slice(4));
  });

  it('cuts by bytes with whole items and stays within the byte budget', async () => {
    const result = await executeTool(listTool(5_000, { maxBytes: 4096, maxItems: 5_000 }), { query: 'x' }, ctx);
    const size = utf8ByteLength(JSON.stringify(result.modelResult));
    assert.ok(size <= 4096, `${size} bytes`);
    const items = (result.modelResult.data as { items: { id: string }[] }).items;
    assert.ok(items.length > 0 && items.length < 5_000);
    assert.deepEqual(
      items.map((item) => item.id),
      items.map((_, i) => `it_${i}`),
      'whole items, in order, none cut in half',
    );
    assert.equal(result.modelResult.completeness.returned_items, items.length);
  });

  it('a complete small listing says complete with exact counts', async () => {
    const result = await executeTool(listTool(3), { query: 'x' }, ctx);
    assert.deepEqual(result.modelResult.completeness, {
      state: 'complete',
      returned_items: 3,
      available_items: 3,
      next: null,
    });
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(result.artifacts.length, 0);
  });

  it('an empty listing is complete with zero items (zero is a count here, not "unknown")', async () => {
    const result = await executeTool(listTool(0), { query: 'x' }, ctx);
    assert.deepEqual(result.modelResult.completeness, {
      state: 'complete',
      returned_items: 0,
      available_items: 0,
      next: null,
    });
  });

  it('a tool count that contradicts its own cursor is unknown, never 0 (regression: property seed -935595855)', async () => {
    const tool = defineTool({
      name: 'pages.list',
      description: 'One page.',
      input: z.strictObject({}),
      output: z.strictObject({ items: z.array(z.string()) }),
      effect: 'read',
      source: { label: 'pages', type: 'http_api' },
      budget: { itemsPointer: '/items' },
      handler: () =>
        Promise.resolve({ data: { items: [] }, next: { type: 'cursor' as const, value: 'p2' }, availableItems: 0 }),
    });
    const { completeness } = (await executeTool(tool, {}, ctx)).modelResult;
    const { notice, ...rest } = completeness;
    assert.deepEqual(rest, {
      state: 'truncated',
      returned_items: 0,
      available_items: null,
      next: null,
      reason: 'upstream_pagination',
    });
    assert.ok(notice !== undefined);
  });

  it('cuts text at code points with a visible marker, never inside a surrogate pair', () => {
    assert.equal(cutText('abcdef', 3), 'abc…[truncated 3 chars]');
    assert.equal(cutText('😀😀😀', 2), '😀😀…[truncated 1 chars]');
    assert.equal(cutText('short', 10), 'short');
  });

  it('cutting text an earlier cut marked leaves one marker that counts both cuts', () => {
    assert.equal(cutText(`abcdefgh${truncationMarker(100)}`, 3), `abc${truncationMarker(105)}`);
    assert.equal(cutText(`abc${truncationMarker(100)}`, 3), `abc${truncationMarker(100)}`, 'nothing more to cut');
    assert.equal(
      cutText('abcdefgh…[truncated many chars]', 3),
      'abc…[truncated 28 chars]',
      'only a marker with a count is one',
    );
  });

  it('redacts before cutting text, so a cut through a secret or the idempotency key leaves no prefix of it (regression)', async () => {
    const jwtPayload = 'eyJzdWIiOiJ1c2VyLTdmM2E5YyIsInJvbGUiOiJhZG1pbiJ9';
    const note = `ref ${ctx.idempotencyKey} token eyJhbGciOiJIUzI1NiJ9.${jwtPayload}.c2lnbmF0dXJlc2ln`;
    const tool = defineTool({
      name: 'notes.get',
      description: 'One note.',
      input: z.strictObject({}),
      output: z.strictObject({ note: z.string() }),
      effect: 'read',
      source: { label: 'notes', type: 'database' },
      budget: { maxTextChars: 20 },
      handler: () => Promise.resolve({ data: { note } }),
    });
    const short = await executeTool(tool, {}, ctx);
    const shown = (short.modelResult.data as { note: string }).note;
    assert.ok(!shown.includes(ctx.idempotencyKey.slice(0, 10)), shown);
    assert.ok(short.audit.redactions.some((r) => r.path === '/data/note' && r.reason === 'protected_value'));
    const long = await executeTool(
      defineTool({ ...tool, name: 'notes.get2', budget: { ...tool.budget, maxTextChars: 70 } }),
      {},
      ctx,
    );
    assert.ok(!JSON.stringify(long.modelResult).includes(jwtPayload.slice(0, 12)));
  });

  it('measures UTF-8 like TextEncoder', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a\ud800b'])
      assert.equal(utf8ByteLength(text), new TextEncoder().encode(text).byteLength, text);
  });
});

describe('structural limits', () => {
  const value = {
    list: [
      { id: 'a', text: 'short' },
      { id: 'b', text: 'long '.repeat(10) },
    ],
    meta: { source: 'x' },
  };

  it('return the value itself when nothing is cut (a large result is not copied to be measured)', () => {
    const notes: TruncationNote[] = [];
    assert.equal(limitStructure(value, { maxItems: 10, maxTextChars: 1000 }, notes), value);
    assert.deepEqual(notes, []);
  });

  it('copy only the branches a limit changed, and note each cut with its path', () => {
    const notes: TruncationNote[] = [];
    const limited = limitStructure(value, { maxItems: 10, maxTextChars: 20 }, notes) as typeof value;
    assert.notEqual(limited, value);
    assert.equal(limited.list[0], value.list[0]);
    assert.equal(limited.meta, value.meta);
    assert.equal(limited.list[1]!.text, cutText(value.list[1]!.text, 20));
    assert.equal(value.list[1]!.text, 'long '.repeat(10), 'the input is never modified');
    assert.deepEqual(
      notes.map(({ path, kind }) => ({ path, kind })),
      [{ path: '/list/1/text', kind: 'text' }],
    );
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
    assert.deepEqual(result.modelResult.completeness, {
      state: 'complete',
      returned_items: 0,
      available_items: 0,
      next: null,
    });
  });
});
