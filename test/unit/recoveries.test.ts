import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ERROR_CATALOG, ToolDefinitionError, ToolError, type EvidenceInput } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { isErrorResult } from '../../src/adapters/error-flag.js';
import { resolvePointer } from '../../src/contract/json-pointer.js';
import { testContext } from '../../testkit/context.js';
import { orderTool } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();

describe('different failures, different recoveries (seed 003)', () => {
  it('not found is corrected or looked up again; a missing permission only the user can obtain', () => {
    assert.equal(ERROR_CATALOG.NOT_FOUND.recovery, 'correct_input');
    assert.equal(ERROR_CATALOG.PERMISSION_DENIED.recovery, 'ask_user');
    assert.equal(ERROR_CATALOG.NOT_FOUND.category, ERROR_CATALOG.PERMISSION_DENIED.category);
  });
});

const shipping = (extra: Record<string, unknown> = {}) =>
  defineTool({
    name: 'orders.ship',
    description: 'Ship a paid order to the address on file.',
    input: z.strictObject({ order_id: z.string() }),
    output: z.strictObject({ shipment_id: z.string() }),
    effect: 'write',
    source: { label: 'warehouse', type: 'http_api' },
    businessErrors: {
      ADDRESS_MISSING: {
        message: 'The order has no shipping address; ask the customer for one.',
        status: 'needs_input',
      },
      ORDER_NOT_PAID: { message: 'The order is not paid yet.' },
    },
    handler: () => Promise.reject(new ToolError('ADDRESS_MISSING')),
    ...extra,
  });

describe('business errors that need input', () => {
  it('a declared needs_input code asks the user: needs_input, ask_user, nothing started — even for a write', async () => {
    const { modelResult } = await executeTool(shipping(), { order_id: 'o1' }, ctx);
    assert.equal(modelResult.status, 'needs_input');
    assert.equal(modelResult.error?.code, 'ADDRESS_MISSING');
    assert.equal(modelResult.error?.recovery, 'ask_user');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(isErrorResult(modelResult), true);
  });

  it('an ordinary business code still fails', async () => {
    const { modelResult } = await executeTool(
      shipping({ handler: () => Promise.reject(new ToolError('ORDER_NOT_PAID')) }),
      { order_id: 'o1' },
      ctx,
    );
    assert.equal(modelResult.status, 'failed');
    assert.equal(modelResult.error?.recovery, 'explain');
  });

  it('a needs_input declaration may correct input instead, but not recommend anything that does not get input', () => {
    const declare = (recovery: 'correct_input' | 'explain') =>
      shipping({ businessErrors: { ADDRESS_MISSING: { message: 'm', status: 'needs_input', recovery } } });
    assert.doesNotThrow(() => declare('correct_input'));
    assert.throws(() => declare('explain'), ToolDefinitionError);
    assert.throws(
      () => shipping({ businessErrors: { ADDRESS_MISSING: { message: 'm', status: 'pending' } } }),
      ToolDefinitionError,
    );
  });
});

describe('evidence on errors', () => {
  const policy: EvidenceInput = {
    kind: 'policy',
    locator: 'refund-policy/v3#window',
    supports: ['/code', '/message'],
    quote: 'Refunds within 30 days.',
  };
  const refusing = (evidence: readonly EvidenceInput[], allowlist?: string[]) =>
    orderTool(
      () => Promise.reject(new ToolError('ORDER_ARCHIVED', {}, { evidence })),
      allowlist ? { source: { label: 'orders-db', type: 'database', allowlist } } : {},
    );

  it('a refusal cites what it rests on: evidence with a stable id, pointing into the error, stored with its source', async () => {
    const first = await executeTool(refusing([policy]), { order_id: 'ord_1' }, ctx);
    const again = await executeTool(refusing([policy]), { order_id: 'ord_1' }, testContext({ attempt: 2 }));
    const [item] = first.modelResult.evidence;
    assert.equal(first.modelResult.status, 'failed');
    assert.ok(item !== undefined);
    assert.equal(item.evidence_id, again.modelResult.evidence[0]?.evidence_id);
    for (const pointer of item.supports) assert.ok(resolvePointer(first.modelResult.error, pointer).found, pointer);
    assert.equal(first.evidenceSources[item.evidence_id], 'orders-db');
  });

  it('evidence that cannot be shown is left out with a warning; the failure stays what it was', async () => {
    const dangling = await executeTool(
      refusing([policy, { ...policy, supports: ['/data/total'] }]),
      { order_id: 'ord_1' },
      ctx,
    );
    assert.equal(dangling.modelResult.error?.code, 'ORDER_ARCHIVED');
    assert.equal(dangling.modelResult.evidence.length, 1);
    assert.ok(dangling.modelResult.warnings.some((warning) => warning.code === 'EVIDENCE_OMITTED'));
    const offList = await executeTool(
      refusing([{ ...policy, source: 'random-blog' }], ['orders-db']),
      { order_id: 'ord_1' },
      ctx,
    );
    assert.equal(offList.modelResult.evidence.length, 0);
    assert.ok(offList.modelResult.warnings.some((warning) => warning.code === 'EVIDENCE_OMITTED'));
  });

  it('evidence for an error the side-effect rules replaced is not shown: it would support nothing', async () => {
    const tool = shipping({ handler: () => Promise.reject(new ToolError('TOOL_ERROR', {}, { evidence: [policy] })) });
    const { modelResult } = await executeTool(tool, { order_id: 'o1' }, ctx);
    assert.equal(modelResult.error?.code, 'OUTCOME_UNKNOWN');
    assert.deepEqual(modelResult.evidence, []);
  });

  it('evidence text is redacted like any evidence', async () => {
    const leaky = { ...policy, locator: `https://policy.example/v3?token=${ctx.idempotencyKey}` };
    const { modelResult } = await executeTool(refusing([leaky]), { order_id: 'ord_1' }, ctx);
    assert.ok(!JSON.stringify(modelResult).includes(ctx.idempotencyKey));
  });
});
