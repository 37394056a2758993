import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { checkBeforeHandler, executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import { ToolDefinitionError } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { InMemoryToolStore } from '../../src/store/index.js';
import { isStoreError } from '../../src/store/store-error.js';
import { FIXED_NOW, testContext } from '../../testkit/context.js';

/** An order read with a one-minute validity window, answering from a mutable status. */
function orderRead(state: { status: 'paid' | 'refunded'; reads: number }) {
  return defineTool({
    name: 'orders.get',
    description: 'Look up one order: its status and what was paid.',
    input: z.strictObject({ order_id: z.string() }),
    output: z.strictObject({
      order_id: z.string(),
      status: z.enum(['paid', 'refunded']),
      paid_cents: z.number().int(),
    }),
    effect: 'read',
    source: { label: 'orders-api', type: 'http_api' },
    validForMs: 60_000,
    handler: (args) => {
      state.reads += 1;
      return Promise.resolve({
        data: { order_id: args.order_id, status: state.status, paid_cents: 5000 },
        observedAt: FIXED_NOW - 10_000,
        evidence: [{ kind: 'order_record', locator: `orders/${args.order_id}`, supports: ['/status', '/paid_cents'] }],
      });
    },
  });
}

/** Seed 000's refund: it rests on the order still being paid, read again right before the refund is sent. */
function refund(read: ReturnType<typeof orderRead>, sent: string[]) {
  return defineTool({
    name: 'refunds.create',
    description: 'Refund an order that is still paid.',
    input: z.strictObject({ order_id: z.string(), amount_cents: z.number().int().positive() }),
    output: z.strictObject({ refund_id: z.string() }),
    effect: 'write',
    source: { label: 'payments-api', type: 'http_api' },
    preconditions: [
      {
        id: 'order-still-paid',
        read,
        arguments: (args) => ({ order_id: args.order_id }),
        holds: (data, args) => {
          const order = data as { status: string; paid_cents: number };
          return (order.status === 'paid' && args.amount_cents <= order.paid_cents) || `order is ${order.status}`;
        },
      },
    ],
    handler: (args) => {
      sent.push(args.order_id);
      return Promise.resolve({
        data: { refund_id: `re_${args.order_id}` },
        receipt: { externalId: `re_${args.order_id}` },
      });
    },
  });
}

describe('a write re-confirms what it rests on (seed 000: a refund on an old read)', () => {
  it('the order is read again right before the refund; refunded meanwhile, the refund does not start', async () => {
    const order = { status: 'paid' as 'paid' | 'refunded', reads: 0 };
    const sent: string[] = [];
    const tool = refund(orderRead(order), sent);
    const ok = await executeTool(tool, { order_id: 'ord_1', amount_cents: 100 }, testContext());
    assert.deepEqual([ok.modelResult.status, order.reads, sent], ['succeeded', 1, ['ord_1']]);
    assert.equal(ok.audit.validation.find((layer) => layer.layer === 'precondition')?.outcome, 'passed');

    order.status = 'refunded';
    const refused = await executeTool(
      tool,
      { order_id: 'ord_1', amount_cents: 100 },
      testContext({ callId: 'call-0002', idempotencyKey: 'idem-2' }),
    );
    assert.deepEqual(
      [refused.modelResult.status, refused.modelResult.error?.code, refused.modelResult.execution.outcome],
      ['failed', 'PRECONDITION_FAILED', 'not_started'],
    );
    assert.deepEqual([order.reads, sent.length], [2, 1], 'read again, and nothing sent');
    const layer = refused.audit.validation.find((entry) => entry.layer === 'precondition');
    assert.deepEqual([layer?.outcome, layer?.reason], ['failed', 'order is refunded']);
    assert.doesNotMatch(JSON.stringify(refused.modelResult), /order is refunded/, 'the reason stays in the audit');
  });

  it('a read that fails refuses the write too; preparing the call does not read (only the dispatch does)', async () => {
    const order = { status: 'paid' as const, reads: 0 };
    const sent: string[] = [];
    const tool = refund(orderRead(order), sent);
    const checked = await checkBeforeHandler(tool, { order_id: 'ord_1', amount_cents: 100 }, testContext());
    assert.deepEqual([checked.kind, order.reads], ['ready', 0]);
    const tooMuch = await executeTool(tool, { order_id: 'ord_1', amount_cents: 9000 }, testContext());
    assert.equal(tooMuch.modelResult.error?.code, 'PRECONDITION_FAILED');
    const broken = defineTool({
      ...orderRead(order),
      name: 'orders.get_broken',
      handler: () => Promise.reject(new Error('down')),
    });
    const unread = await executeTool(refund(broken, sent), { order_id: 'ord_1', amount_cents: 100 }, testContext());
    assert.deepEqual([unread.modelResult.error?.code, sent.length], ['PRECONDITION_FAILED', 0]);
  });

  it('preconditions belong to writes, and read with a read tool', () => {
    const read = orderRead({ status: 'paid', reads: 0 });
    const precondition = { id: 'p', read, arguments: () => ({}), holds: () => true };
    assert.throws(
      () => defineTool({ ...read, name: 'orders.get2', preconditions: [precondition] }),
      ToolDefinitionError,
    );
    assert.throws(() => refund(refund(read, []) as never, []), ToolDefinitionError);
  });
});

describe('results and state entries have a validity window (seed 000)', () => {
  it('a result says until when it may be relied on: from when its fact was observed', async () => {
    const { modelResult } = await executeTool(
      orderRead({ status: 'paid', reads: 0 }),
      { order_id: 'ord_1' },
      testContext(),
    );
    assert.equal(modelResult.provenance.valid_until, new Date(FIXED_NOW - 10_000 + 60_000).toISOString());
  });

  it('a state patch resting only on an expired result is refused (STALE_DATA); one written in time replays after', async () => {
    let now = FIXED_NOW;
    const store = new InMemoryToolStore({ now: () => new Date(now) });
    const read: ToolExecution = await executeTool(
      orderRead({ status: 'paid', reads: 0 }),
      { order_id: 'ord_1' },
      testContext({ temporal: { workflowId: 'wf-1', runId: 'run-1', activityId: '1', attempt: 1 } }),
    );
    await store.recordExecution({ execution: read, workflowId: 'wf-1', runId: 'run-1' });
    const patch = (patchId: string) => ({
      patchId,
      workflowId: 'wf-1',
      key: 'order:ord_1',
      value: { status: 'paid' },
      evidenceIds: read.modelResult.evidence.map((e) => e.evidence_id),
      expectedVersion: 0,
      callId: 'call-0001',
    });
    assert.equal((await store.applyStatePatch(patch('p-1'))).applied, true);
    now = FIXED_NOW + 60_000;
    assert.equal(
      (await store.applyStatePatch(patch('p-1'))).applied,
      false,
      'a retry of a patch written in time is a replay',
    );
    await assert.rejects(
      store.applyStatePatch({ ...patch('p-2'), key: 'order:ord_1:copy' }),
      (error: unknown) => isStoreError(error) && error.reason === 'evidence_expired' && error.code === 'STALE_DATA',
    );
  });
});
