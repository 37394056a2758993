// The package's own dispatch fence before a write's handler (issue 32), on the in-memory store: the handler runs only
// behind it, a revoked or expired lease keeps the handler from starting, the first passage marks the key dispatched,
// and reads pass no fence at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { dispatchFence } from '../../activities/dispatch-fence.js';
import { behindHandlerFence } from '../../activities/fenced-handler.js';
import { openDispatchFence } from '../../src/contract/tool-handler.js';
import { isToolError, type AnyToolImplementation, type HandlerContext } from '../../src/index.js';
import { InMemoryToolStore } from '../../src/store/in-memory/in-memory-tool-store.js';
import type { Lease } from '../../src/store/lease.js';
import type { ToolStore } from '../../src/store/tool-store.js';
import { defineTool } from '../../testkit/define-tool.js';

const REQUEST_SHA256 = 'a'.repeat(64);

function writeTool(handled: string[]): AnyToolImplementation {
  return defineTool({
    name: 'payments.charge',
    description: 'Charges a card once.',
    input: z.strictObject({ amount: z.number() }),
    output: z.strictObject({ amount: z.number() }),
    effect: 'write',
    source: { label: 'payments-api', type: 'http_api' },
    handler: async (args) => {
      handled.push('ran');
      return { data: args };
    },
  }) as AnyToolImplementation;
}

const handlerContext: HandlerContext = {
  callId: 'c1',
  operationId: 'op-1',
  idempotencyKey: 'k',
  attempt: 1,
  principal: { tenant: 't', subject: 's' },
  now: Date.now,
  beforeDispatch: openDispatchFence,
};

async function claimed(store: ToolStore, key: string, durationMs = 30_000): Promise<Lease> {
  const claim = await store.claimIdempotencyKey({
    idempotencyKey: key,
    requestSha256: REQUEST_SHA256,
    tool: 'payments.charge',
    workflowId: 'wf-1',
    callId: 'c1',
    lease: { runId: 'run-1', durationMs },
  });
  assert.ok(claim.kind === 'claimed' && claim.lease !== null);
  return claim.lease;
}

const liveDeadline = () => ({ atMs: Date.now() + 30_000, signal: new AbortController().signal });

/** The catalog code and fence point of what `run` threw. */
async function refusal(run: () => Promise<unknown>): Promise<[string, unknown]> {
  try {
    await run();
  } catch (error) {
    assert.ok(isToolError(error));
    return [error.code, (error.details as Record<string, unknown>)['point']];
  }
  return assert.fail('the fence let the handler run');
}

describe("the package's fence before a write's handler", () => {
  it('runs the handler only behind the fence, and marks the key dispatched from its start', async () => {
    const store = new InMemoryToolStore();
    const handled: string[] = [];
    const fence = dispatchFence(store, 'k1', await claimed(store, 'k1'), liveDeadline());
    assert.equal((await store.getLedgerEntry('k1'))?.lease?.dispatchedAt, null);
    await behindHandlerFence(writeTool(handled), fence).handler({ amount: 1 }, handlerContext);
    assert.deepEqual(handled, ['ran']);
    assert.ok((await store.getLedgerEntry('k1'))?.lease?.dispatchedAt, 'the attempt counts as possibly sent');
    assert.deepEqual(
      [fence.handlerStarted(), fence.passed()],
      [true, false],
      "the handler's own fence is another one, not passed here",
    );
  });

  it('keeps the handler from starting once reconciliation revoked the lease, or once the deadline passed', async () => {
    const store = new InMemoryToolStore();
    const handled: string[] = [];
    const lease = await claimed(store, 'k2');
    await store.openReconciliation({
      idempotencyKey: 'k2',
      workflowId: 'wf-1',
      callId: 'c1',
      tool: 'payments.charge',
      auditId: null,
      fence: {
        dispatcher: { workflowId: 'wf-1', runId: 'run-1', callId: 'c1' },
        requestSha256: REQUEST_SHA256,
        graceMs: 5000,
      },
    });
    const revoked = dispatchFence(store, 'k2', lease, liveDeadline());
    assert.deepEqual(
      await refusal(() => behindHandlerFence(writeTool(handled), revoked).handler({ amount: 1 }, handlerContext)),
      ['TIMEOUT_BEFORE_EXECUTE', 'before_handler'],
    );
    const late = dispatchFence(store, 'k3', await claimed(store, 'k3'), {
      atMs: Date.now() - 1,
      signal: new AbortController().signal,
    });
    assert.deepEqual(
      await refusal(() => behindHandlerFence(writeTool(handled), late).handler({ amount: 1 }, handlerContext)),
      ['TIMEOUT_BEFORE_EXECUTE', 'before_handler'],
    );
    assert.deepEqual(handled, [], 'the handler never started');
    assert.equal(revoked.handlerStarted(), false);
    assert.equal(
      (await store.getLedgerEntry('k3'))?.lease?.dispatchedAt,
      null,
      'refused locally: no mark, so its verdict need not wait',
    );
  });

  it('keeps the handler from starting when the store cannot answer the fence', async () => {
    const store = new InMemoryToolStore();
    const handled: string[] = [];
    const lease = await claimed(store, 'k4');
    const unreachable: ToolStore = Object.assign(Object.create(store) as ToolStore, {
      fenceDispatch: () => Promise.reject(new Error('connection terminated')),
    });
    await assert.rejects(
      behindHandlerFence(writeTool(handled), dispatchFence(unreachable, 'k4', lease, liveDeadline())).handler(
        { amount: 1 },
        handlerContext,
      ),
    );
    assert.deepEqual(handled, []);
  });

  it('leaves a read alone: no fence, no store round trip', () => {
    const read = { ...writeTool([]), effect: 'read' } as AnyToolImplementation;
    const store = new InMemoryToolStore();
    const fence = dispatchFence(
      store,
      'k5',
      { token: 't', expiresAt: new Date(Date.now() + 30_000).toISOString() },
      liveDeadline(),
    );
    assert.equal(behindHandlerFence(read, fence), read);
  });
});
