import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { type ModelResult, type ToolOutput } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { codeOf } from '../support/assertions.js';
import { FIXED_NOW, testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

const cursorKey = new Uint8Array(32).fill(42);
const ctx = testContext({ cursorKey });
const item = z.strictObject({ id: z.string() });
type Item = z.infer<typeof item>;
const catalog: Item[] = Array.from({ length: 12 }, (_, i) => ({ id: `it_${i + 1}` }));

/** An offset-paged listing over `catalog`: the upstream returns everything from the offset on; the budget shows 5. */
const offsetList = defineTool({
  name: 'items.list',
  description: 'Items.',
  input: z.strictObject({ q: z.string(), offset: z.number().int().nonnegative().optional() }),
  output: z.strictObject({ items: z.array(item) }),
  effect: 'read',
  source: { label: 'items', type: 'database' },
  budget: { itemsPointer: '/items', maxItems: 5 },
  continuation: { kind: 'offset', argument: 'offset' },
  handler: (args) =>
    Promise.resolve({
      data: { items: catalog.slice(args.offset ?? 0) },
      availableItems: catalog.length - (args.offset ?? 0),
    }),
});

/** A cursor-paged listing: upstream pages of 7 and 5 items (over the budget of 5), with evidence on the last item of each page. */
function cursorList(seen: (string | undefined)[] = [], ttlMs?: number) {
  const pages = [catalog.slice(0, 7), catalog.slice(7)];
  return defineTool({
    name: 'items.scan',
    description: 'Items.',
    input: z.strictObject({ q: z.string(), cursor: z.string().optional() }),
    output: z.strictObject({ items: z.array(item) }),
    effect: 'read',
    source: { label: 'items', type: 'database' },
    budget: { itemsPointer: '/items', maxItems: 5 },
    continuation: { kind: 'cursor', argument: 'cursor', ...(ttlMs === undefined ? {} : { ttlMs }) },
    handler: (args): Promise<ToolOutput<{ items: Item[] }>> => {
      seen.push(args.cursor);
      const page = args.cursor === undefined ? 0 : Number(args.cursor.replace('upstream-', ''));
      const items = pages[page]!;
      return Promise.resolve({
        data: { items },
        next: page + 1 < pages.length ? { type: 'cursor', value: `upstream-${page + 1}` } : null,
        evidence: [{ kind: 'row', locator: `page-${page}`, supports: [`/items/${items.length - 1}/id`] }],
      });
    },
  });
}

/** Follows `continue_with` from `args` until the listing ends; returns every model result. */
async function followAll(
  tool: ReturnType<typeof cursorList> | typeof offsetList,
  args: Record<string, unknown>,
  context: ExecutionContext = ctx,
): Promise<ModelResult[]> {
  const results: ModelResult[] = [];
  let next: Record<string, unknown> | undefined = args;
  while (next !== undefined && results.length < 10) {
    const { modelResult } = await executeTool(tool, next, context);
    results.push(modelResult);
    next = modelResult.completeness.continue_with?.arguments;
  }
  return results;
}
const ids = (results: readonly ModelResult[]) =>
  results.flatMap((r) => (r.data as { items: Item[] }).items.map((i) => i.id));

describe('offset continuation', () => {
  it('continues with absolute offsets: three pages show every item once, in order, with ranges and notices', async () => {
    const pages = await followAll(offsetList, { q: 'x' });
    assert.equal(pages.length, 3);
    assert.deepEqual(
      ids(pages),
      catalog.map((i) => i.id),
    );
    assert.deepEqual(
      pages.map((p) => p.completeness.next),
      [{ type: 'offset', value: 5 }, { type: 'offset', value: 10 }, null],
    );
    assert.deepEqual(
      pages.map((p) => p.completeness.range),
      [
        { from: 1, to: 5, of: 12 },
        { from: 6, to: 10, of: 12 },
        { from: 11, to: 12, of: 12 },
      ],
    );
    assert.deepEqual(pages[1]!.completeness.continue_with, { tool: 'items.list', arguments: { q: 'x', offset: 10 } });
    assert.equal(pages[0]!.completeness.notice, 'Items 1–5 of 12 shown. More follow: call items.list with offset=5.');
    assert.equal(pages[2]!.completeness.notice, 'Items 11–12 of 12 shown; this is the end of the listing.');
    assert.deepEqual(
      pages.map((p) => p.status),
      ['partial', 'partial', 'succeeded'],
    );
  });

  it("a handler's own next offset must move past this call's position", async () => {
    const stuck = defineTool({
      ...offsetList,
      handler: () => Promise.resolve({ data: { items: [] }, next: { type: 'offset' as const, value: 3 } }),
    });
    assert.equal(codeOf(await executeTool(stuck, { q: 'x', offset: 3 }, ctx)), 'OUTPUT_CONTRACT_VIOLATION');
    const wrongKind = defineTool({
      ...offsetList,
      handler: () => Promise.resolve({ data: { items: [] }, next: { type: 'cursor' as const, value: 'c' } }),
    });
    assert.equal(codeOf(await executeTool(wrongKind, { q: 'x' }, ctx)), 'OUTPUT_CONTRACT_VIOLATION');
  });
});

describe('cursor continuation', () => {
  it('three pages: a page cut to its budget continues inside the same upstream page, then on the next one', async () => {
    const seen: (string | undefined)[] = [];
    const pages = await followAll(cursorList(seen), { q: 'x' });
    assert.equal(pages.length, 3);
    assert.deepEqual(
      ids(pages),
      catalog.map((i) => i.id),
      'every item once, in order',
    );
    // The handler saw only upstream cursors: the first page twice (the second time past the 5 items shown).
    assert.deepEqual(seen, [undefined, undefined, 'upstream-1']);
    // The last page knows the total: nothing follows it.
    assert.deepEqual(
      pages.map((p) => p.completeness.range),
      [
        { from: 1, to: 5, of: null },
        { from: 6, to: 7, of: null },
        { from: 8, to: 12, of: 12 },
      ],
    );
    // Evidence follows the items: the cited last item of upstream page 0 is item 2 of the second result.
    assert.deepEqual(
      pages[1]!.evidence.map((e) => e.supports),
      [['/items/1/id']],
    );
    for (const page of pages.slice(0, 2)) {
      const sealed = page.completeness.next?.value as string;
      assert.match(sealed, /^ttc1\./);
      assert.equal(page.completeness.continue_with?.arguments['cursor'], sealed);
      assert.ok(!JSON.stringify(page).includes('upstream-'), 'the model never sees an upstream cursor');
    }
    assert.equal(pages[2]!.completeness.next, null);
  });

  it('a forged cursor is INVALID_ARGUMENTS and nothing runs', async () => {
    const seen: (string | undefined)[] = [];
    const tool = cursorList(seen);
    const first = (await executeTool(tool, { q: 'x' }, ctx)).modelResult;
    const sealed = first.completeness.next?.value as string;
    const [prefix, , mac] = sealed.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ c: 'upstream-1', e: FIXED_NOW + 10 ** 9, p: 0, s: 0 })).toString(
      'base64url',
    );
    for (const forged of ['upstream-1', `${prefix}.${forgedPayload}.${mac}`, sealed.slice(0, -2)]) {
      const result = await executeTool(tool, { q: 'x', cursor: forged }, ctx);
      assert.equal(codeOf(result), 'INVALID_ARGUMENTS', forged.slice(0, 20));
      assert.deepEqual([result.modelResult.status, result.modelResult.execution.outcome], ['failed', 'not_started']);
    }
    assert.deepEqual(seen, [undefined], 'the handler ran for the first page only');
  });

  it("another principal's cursor, or one replayed with other arguments, is refused", async () => {
    const tool = cursorList();
    const sealed = (await executeTool(tool, { q: 'x' }, ctx)).modelResult.completeness.next?.value as string;
    const otherTenant = testContext({ cursorKey, principal: { tenant: 'tenant-evil', subject: 'user-7f3a9c' } });
    assert.equal(codeOf(await executeTool(tool, { q: 'x', cursor: sealed }, otherTenant)), 'INVALID_ARGUMENTS');
    assert.equal(codeOf(await executeTool(tool, { q: 'other query', cursor: sealed }, ctx)), 'INVALID_ARGUMENTS');
    assert.equal(
      codeOf(await executeTool(tool, { q: 'x', cursor: sealed }, ctx)),
      null,
      'the rightful caller continues',
    );
  });

  it('an expired cursor is refused', async () => {
    const tool = cursorList([], 60_000);
    const sealed = (await executeTool(tool, { q: 'x' }, ctx)).modelResult.completeness.next?.value as string;
    const later = testContext({ cursorKey, now: () => FIXED_NOW + 60_000 });
    const result = await executeTool(tool, { q: 'x', cursor: sealed }, later);
    assert.equal(codeOf(result), 'INVALID_ARGUMENTS');
    assert.deepEqual((result.audit.error_detail as { detail: unknown }).detail, { cursor: 'expired' });
  });

  it('without a cursor key the tool does not run (TOOL_ERROR, not started): no cursor could be sealed or checked', async () => {
    const result = await executeTool(cursorList(), { q: 'x' }, testContext());
    assert.deepEqual([codeOf(result), result.modelResult.execution.outcome], ['TOOL_ERROR', 'not_started']);
  });
});

describe('a listing that declares no continuation offers no next (regression: a model following it looped on page two)', () => {
  /** The upstream serves 200 of 1,000 rows per page; the tool declares no argument that continues it. */
  const rows = Array.from({ length: 1_000 }, (_, i) => ({ id: `row_${i}` }));
  const unpaged = defineTool({
    name: 'rows.list',
    description: 'Rows, 200 at a time.',
    input: z.strictObject({ q: z.string(), offset: z.number().int().nonnegative().optional() }),
    output: z.strictObject({ items: z.array(item) }),
    effect: 'read',
    source: { label: 'rows', type: 'database' },
    budget: { itemsPointer: '/items', maxItems: 200 },
    handler: () => Promise.resolve({ data: { items: rows.slice(0, 250) }, availableItems: rows.length }),
  });

  it('a cut page is truncated and says it cannot be continued, with no next to follow and no call to continue with', async () => {
    const { modelResult } = await executeTool(unpaged, { q: 'x' }, ctx);
    assert.equal(modelResult.status, 'partial');
    assert.equal(modelResult.completeness.state, 'truncated');
    assert.equal(modelResult.completeness.next, null);
    assert.equal(modelResult.completeness.continue_with, undefined);
    assert.match(modelResult.completeness.notice ?? '', /declares no way to continue/);
  });

  it('an upstream cursor the tool cannot take back is not passed on either', async () => {
    const tool = defineTool({
      ...unpaged,
      name: 'rows.scan',
      handler: () =>
        Promise.resolve({
          data: { items: rows.slice(0, 10) },
          next: { type: 'cursor' as const, value: 'upstream-page-2' },
        }),
    });
    const { modelResult } = await executeTool(tool, { q: 'x' }, ctx);
    assert.equal(modelResult.completeness.state, 'truncated');
    assert.equal(modelResult.completeness.next, null);
    assert.doesNotMatch(JSON.stringify(modelResult), /upstream-page-2/);
  });
});

describe('defineTool: continuation', () => {
  const base = {
    name: 'x.list',
    description: 'd',
    output: z.strictObject({ items: z.array(item) }),
    source: { label: 's', type: 't' },
    handler: () => Promise.resolve({ data: { items: [] } }),
  };
  it('needs a read whose input object declares the argument', () => {
    const input = z.strictObject({ offset: z.number().optional() });
    assert.throws(
      () => defineTool({ ...base, input, effect: 'write', continuation: { kind: 'offset', argument: 'offset' } }),
      /reads only/,
    );
    assert.throws(
      () => defineTool({ ...base, input, effect: 'read', continuation: { kind: 'offset', argument: 'page' } }),
      /must be a key of the input object schema/,
    );
    assert.throws(
      () =>
        defineTool({
          ...base,
          input: z.string(),
          effect: 'read',
          continuation: { kind: 'offset', argument: 'offset' },
        }),
      /must be a key/,
    );
    assert.throws(
      () =>
        defineTool({
          ...base,
          input: z.strictObject({ c: z.string().optional() }),
          effect: 'read',
          continuation: { kind: 'cursor', argument: 'c', ttlMs: 0 },
        }),
      /ttlMs/,
    );
  });
  it('a call limit is a positive integer', () => {
    assert.throws(() => defineTool({ ...base, input: z.strictObject({}), effect: 'read', callLimit: 0 }), /callLimit/);
    assert.equal(defineTool({ ...base, input: z.strictObject({}), effect: 'read', callLimit: 3 }).callLimit, 3);
  });
});
