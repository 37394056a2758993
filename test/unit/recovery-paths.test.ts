import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolError, type ModelResult } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { withRecoveryPaths, type RecoveryCall } from '../../workflows/call/recovery-paths.js';
import type { ToolCallResult } from '../../workflows/index.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning, sampleOrder } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

// The workflow's recovery decisions, on real model results: which result answers the call, which calls it replaced.
const ctx = testContext();
const asCall = async (result: Promise<{ modelResult: ModelResult }>): Promise<ToolCallResult> => ({
  modelResult: (await result).modelResult,
  auditRef: null,
});
const read = (handler: () => Promise<never>) => asCall(executeTool(orderTool(handler), { order_id: 'ord_1001' }, ctx));
const succeeded = () => read(returning(goodOrderOutput()));
const contractBroken = () =>
  read(returning({ ...goodOrderOutput(), data: { ...sampleOrder, total_cents: undefined } }));
const thrown = (code: string) => read(() => Promise.reject(new ToolError(code)));
const refusedArguments = () => asCall(executeTool(orderTool(returning(goodOrderOutput())), { id: 1 }, ctx));
const unknownWrite = () =>
  asCall(
    executeTool(
      defineTool({
        name: 'orders.cancel',
        description: 'Cancel an order.',
        input: z.strictObject({}),
        output: z.null(),
        effect: 'write',
        source: { label: 'o', type: 'db' },
        handler: () => Promise.reject(new Error('socket hang up')),
      }),
      {},
      ctx,
    ),
  );

/** A recovery call that answers from a script and records what it was asked. */
function scripted(answers: Record<string, () => Promise<ToolCallResult>>): RecoveryCall & { asked: string[] } {
  const asked: string[] = [];
  const call = async (tool: string, callId: string) => {
    asked.push(`${tool} ${callId}`);
    const answer = answers[`${tool} ${callId}`];
    if (answer === undefined) throw new Error(`unexpected call ${tool} ${callId}`);
    return answer();
  };
  return Object.assign(call, { asked });
}

describe('re-query (opt-in, reads, contract failures)', () => {
  it('a read that failed its output contract is asked once more; the second answer stands, the first is listed', async () => {
    const call = scripted({ 'orders.get c1.requery': succeeded });
    const result = await withRecoveryPaths('orders.get', 'c1', await contractBroken(), { requery: true }, call);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(
      result.attempts?.map((a) => [a.callId, a.code]),
      [['c1', 'OUTPUT_CONTRACT_VIOLATION']],
    );
  });

  it('is never done unless asked for, for another code, or for a write', async () => {
    const call = scripted({});
    assert.equal((await withRecoveryPaths('orders.get', 'c1', await contractBroken(), {}, call)).attempts, undefined);
    assert.equal(
      (await withRecoveryPaths('orders.get', 'c1', await thrown('NOT_FOUND'), { requery: true }, call)).attempts,
      undefined,
    );
    assert.equal(
      (await withRecoveryPaths('orders.cancel', 'c1', await unknownWrite(), { requery: true }, call)).attempts,
      undefined,
    );
    assert.deepEqual(call.asked, []);
  });
});

describe('fallback tools', () => {
  it('after a transient failure, fallbacks run in order with derived call ids; one that refuses the arguments is skipped', async () => {
    const call = scripted({
      'catalog.search c1.fallback-1': refusedArguments,
      'orders.get_replica c1.fallback-2': succeeded,
    });
    const result = await withRecoveryPaths(
      'orders.get',
      'c1',
      await thrown('UPSTREAM_UNAVAILABLE'),
      { fallbackTools: { 'orders.get': ['catalog.search', 'orders.get_replica', 'never.reached'] } },
      call,
    );
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(
      result.attempts?.map((a) => [a.callId, a.code]),
      [
        ['c1', 'UPSTREAM_UNAVAILABLE'],
        ['c1.fallback-1', 'INVALID_ARGUMENTS'],
      ],
    );
    assert.deepEqual(call.asked, ['catalog.search c1.fallback-1', 'orders.get_replica c1.fallback-2']);
  });

  it('when no fallback can take the call, the original failure is the answer', async () => {
    const call = scripted({ 'catalog.search c1.fallback-1': refusedArguments });
    const result = await withRecoveryPaths(
      'orders.get',
      'c1',
      await thrown('RATE_LIMITED'),
      { fallbackTools: { 'orders.get': ['catalog.search'] } },
      call,
    );
    assert.equal(result.modelResult.error?.code, 'RATE_LIMITED');
    assert.deepEqual(
      result.attempts?.map((a) => a.code),
      ['INVALID_ARGUMENTS'],
    );
  });

  it('never after a failure another tool would repeat, nor after a write that may have happened', async () => {
    const call = scripted({});
    const fallbackTools = { 'orders.get': ['orders.get_replica'], 'orders.cancel': ['orders.cancel_v2'] };
    for (const first of [await thrown('NOT_FOUND'), await thrown('ORDER_ARCHIVED'), await succeeded()]) {
      assert.equal((await withRecoveryPaths('orders.get', 'c1', first, { fallbackTools }, call)).attempts, undefined);
    }
    assert.equal(
      (await withRecoveryPaths('orders.cancel', 'c1', await unknownWrite(), { fallbackTools }, call)).attempts,
      undefined,
    );
    assert.deepEqual(call.asked, []);
  });

  it('a re-query that fails again may still fall back', async () => {
    const call = scripted({
      'orders.get c1.requery': () => thrown('UPSTREAM_UNAVAILABLE'),
      'orders.get_replica c1.fallback-1': succeeded,
    });
    const result = await withRecoveryPaths(
      'orders.get',
      'c1',
      await contractBroken(),
      { requery: true, fallbackTools: { 'orders.get': ['orders.get_replica'] } },
      call,
    );
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(
      result.attempts?.map((a) => a.callId),
      ['c1', 'c1.requery'],
    );
  });
});
