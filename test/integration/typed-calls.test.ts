// A call made with a tool's declaration goes straight to its tool activity: a read, and a write that no person decides,
// record exactly the history of one bare activity — no local activity, no marker, no extra workflow task — and give
// back data typed by the declaration (the compiler's side is test/unit/typed-calls.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import type { typedRead, typedWrite } from '../support/test-workflows.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-typed', subject: 'user-typed' };
const BARE = 'bare.echo';
const h = useRuntimeHarness('it-typed-calls');

/** The event types of a workflow's history, in order. */
async function eventTypes(workflowId: string): Promise<string[]> {
  const history = await h.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map(
    (event) =>
      Object.keys(event).find((key) => key.endsWith('EventAttributes') && event[key as keyof typeof event] != null) ??
      'unknown',
  );
}

test(
  'a typed read and a typed write record the history of one bare activity, and return typed data',
  { timeout: 180_000 },
  async () => {
    const { client } = h.temporal;
    // The baseline: one plain activity, scheduled as a workflow would without the package, on a worker that serves it
    // beside the plugin's (one worker per task queue in a process: the file's first one makes way).
    await h.worker.stop();
    await h.startWorker({ activities: { [BARE]: (input: unknown) => Promise.resolve(input) } });
    await client.workflow.execute('bareActivity', {
      taskQueue: h.taskQueue,
      workflowId: 'typed-bare',
      args: [BARE, { ok: true }],
    });
    const read = await client.workflow.execute<typeof typedRead>('typedRead', {
      taskQueue: h.taskQueue,
      workflowId: 'typed-read',
      args: [principal, 'cus_7'],
    });
    const write = await client.workflow.execute<typeof typedWrite>('typedWrite', {
      taskQueue: h.taskQueue,
      workflowId: 'typed-write',
      args: [principal, 'pay_typed_1'],
    });
    assert.equal(read.tier, 'gold');
    assert.equal(read.result.modelResult.status, 'succeeded');
    assert.match(write.chargeId ?? '', /^ch_/);
    assert.equal(write.result.modelResult.execution.outcome, 'committed');
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_typed_1', TOOLS.charge)), 1);

    const baseline = await eventTypes('typed-bare');
    assert.equal(baseline.length, 11, baseline.join(', '));
    for (const id of ['typed-read', 'typed-write']) {
      const types = await eventTypes(id);
      assert.deepEqual(types, baseline, `${id} records what one bare activity records`);
      assert.ok(!types.includes('markerRecordedEventAttributes'), `${id}: no local activity, no patch marker`);
    }
    assert.deepEqual(await h.replay(['typed-read', 'typed-write']), []);
  },
);
