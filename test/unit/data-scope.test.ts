import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ERROR_CATALOG, type DataScope } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();
const TENANT = ctx.principal.tenant;
const layer = (result: Awaited<ReturnType<typeof executeTool>>, name: string) =>
  result.audit.validation.find((l) => l.layer === name)!;

const invoice = z.strictObject({ id: z.string(), tenant_id: z.string(), owner: z.string(), total: z.number() });
type Invoice = z.infer<typeof invoice>;
const mine: Invoice = { id: 'inv_1', tenant_id: TENANT, owner: ctx.principal.subject, total: 10 };
const foreign: Invoice = { id: 'inv_9', tenant_id: 'tenant-other', owner: 'someone', total: 99_999 };

/** A lookup whose upstream returns whatever the test gives it, scoped by tenant (and optionally subject). */
function lookup(record: unknown, scope: DataScope = { tenantPointer: '/tenant_id' }) {
  return defineTool({
    name: 'invoices.get',
    description: 'One invoice.',
    input: z.strictObject({ id: z.string() }),
    output: invoice,
    effect: 'read',
    source: { label: 'billing', type: 'database' },
    scope,
    handler: () =>
      Promise.resolve({
        data: record as Invoice,
        observedAt: '2026-11-30T11:00:00Z',
        evidence: [{ kind: 'row', locator: 'invoices/x', supports: ['/total'] }],
      }),
  });
}

function listing(records: unknown[]) {
  return defineTool({
    name: 'invoices.list',
    description: 'Invoices.',
    input: z.strictObject({}),
    output: z.strictObject({ invoices: z.array(invoice) }),
    effect: 'read',
    source: { label: 'billing', type: 'database' },
    budget: { itemsPointer: '/invoices' },
    scope: { tenantPointer: '/tenant_id' },
    handler: () => Promise.resolve({ data: { invoices: records as Invoice[] }, availableItems: records.length }),
  });
}

describe("scope layer: data is the caller's before the model sees it", () => {
  it("a record of the caller's tenant passes", async () => {
    const result = await executeTool(lookup(mine), { id: 'inv_1' }, ctx);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(
      [layer(result, 'scope').outcome, layer(result, 'scope').rule_version],
      ['passed', 'scope@1;tenant=/tenant_id'],
    );
  });

  it("another tenant's record is NOT_FOUND — the answer an absent record gets — and none of it reaches the model", async () => {
    const result = await executeTool(lookup(foreign), { id: 'inv_9' }, ctx);
    assert.equal(codeOf(result), 'NOT_FOUND');
    assert.deepEqual(
      [result.modelResult.status, result.modelResult.data, result.modelResult.evidence],
      ['failed', null, []],
    );
    assert.equal(result.modelResult.error?.message, ERROR_CATALOG.NOT_FOUND.message);
    const shown = JSON.stringify(result.modelResult);
    for (const leaked of ['inv_9', 'tenant-other', '99999']) assert.ok(!shown.includes(leaked), leaked);
    assert.equal(layer(result, 'scope').outcome, 'failed');
    assert.ok(
      !JSON.stringify(result.audit).includes('tenant-other'),
      'the audit names the pointer, never the foreign value',
    );
  });

  it('runs before the schema: a foreign record that also breaks the schema is still NOT_FOUND, not a hint that it exists', async () => {
    const result = await executeTool(lookup({ ...foreign, secret_column: 'x' }), { id: 'inv_9' }, ctx);
    assert.equal(codeOf(result), 'NOT_FOUND');
    assert.equal(layer(result, 'schema').reason, 'not reached');
  });

  it('a record without the tenant field, or with a non-string one, is out of scope (fails closed)', async () => {
    const unattributed = { id: mine.id, owner: mine.owner, total: mine.total };
    assert.equal(codeOf(await executeTool(lookup(unattributed), { id: 'inv_1' }, ctx)), 'NOT_FOUND');
    assert.equal(
      codeOf(await executeTool(lookup({ ...mine, tenant_id: [TENANT] }), { id: 'inv_1' }, ctx)),
      'NOT_FOUND',
    );
  });

  it('a subject pointer scopes to the caller within the tenant', async () => {
    const scope = { tenantPointer: '/tenant_id', subjectPointer: '/owner' };
    assert.equal(codeOf(await executeTool(lookup(mine, scope), { id: 'inv_1' }, ctx)), null);
    assert.equal(
      codeOf(await executeTool(lookup({ ...mine, owner: 'colleague' }, scope), { id: 'inv_1' }, ctx)),
      'NOT_FOUND',
    );
  });

  it('a listing with one foreign item is refused whole as PERMISSION_DENIED (never shown as a shorter list)', async () => {
    const result = await executeTool(listing([mine, foreign, mine]), {}, ctx);
    assert.equal(codeOf(result), 'PERMISSION_DENIED');
    assert.equal(result.modelResult.data, null);
    assert.ok(!JSON.stringify(result.modelResult).includes('inv_9'));
    assert.deepEqual((result.audit.error_detail as { detail: unknown }).detail, {
      out_of_scope: 'items',
      list: '/invoices',
      count: 1,
      of: 3,
      indexes: [1],
    });
  });

  it("a listing of the caller's own items passes, and an empty one too", async () => {
    assert.equal((await executeTool(listing([mine, mine]), {}, ctx)).modelResult.status, 'succeeded');
    assert.equal((await executeTool(listing([]), {}, ctx)).modelResult.status, 'succeeded');
  });

  it('defineTool: scope is for reads, needs a pointer, and each must be a JSON Pointer', () => {
    const base = {
      name: 't',
      description: 'd',
      input: z.strictObject({}),
      output: invoice,
      source: { label: 's', type: 't' },
      handler: () => Promise.resolve({ data: mine }),
    };
    assert.throws(() => defineTool({ ...base, effect: 'write', scope: { tenantPointer: '/tenant_id' } }), /reads only/);
    assert.throws(
      () => defineTool({ ...base, effect: 'read', scope: {} }),
      /needs a tenantPointer or a subjectPointer/,
    );
    assert.throws(
      () => defineTool({ ...base, effect: 'read', scope: { tenantPointer: 'tenant_id' } }),
      /not a JSON Pointer/,
    );
  });
});

describe("source labels come from the tool's declaration", () => {
  function reporting(label: string, evidenceSource?: string) {
    return defineTool({
      name: 'rates.get',
      description: 'A rate.',
      input: z.strictObject({}),
      output: z.strictObject({ rate: z.number() }),
      effect: 'read',
      source: { label: 'rates-db', type: 'database', allowlist: ['rates-replica'] },
      handler: () =>
        Promise.resolve({
          data: { rate: 1 },
          sourceLabel: label,
          evidence: [
            {
              kind: 'row',
              locator: 'r',
              supports: ['/rate'],
              ...(evidenceSource === undefined ? {} : { source: evidenceSource }),
            },
          ],
        }),
    });
  }
  it("the tool's own label and its allowlisted labels pass", async () => {
    assert.equal(codeOf(await executeTool(reporting('rates-db'), {}, ctx)), null);
    assert.equal(codeOf(await executeTool(reporting('rates-replica', 'rates-db'), {}, ctx)), null);
  });
  it("a label the handler made up is SOURCE_NOT_ALLOWED, whether as the result's source or an evidence item's", async () => {
    assert.equal(codeOf(await executeTool(reporting('trusted-by-me'), {}, ctx)), 'SOURCE_NOT_ALLOWED');
    assert.equal(codeOf(await executeTool(reporting('rates-db', 'random-blog'), {}, ctx)), 'SOURCE_NOT_ALLOWED');
  });
  it("without an allowlist only the tool's label is declared (regression: any label was accepted)", async () => {
    const tool = defineTool({
      name: 'fx.get',
      description: 'FX.',
      input: z.strictObject({}),
      output: z.strictObject({ rate: z.number() }),
      effect: 'read',
      source: { label: 'fx', type: 'http_api' },
      handler: () => Promise.resolve({ data: { rate: 1 }, sourceLabel: 'central-bank' }),
    });
    assert.equal(codeOf(await executeTool(tool, {}, ctx)), 'SOURCE_NOT_ALLOWED');
  });
});
