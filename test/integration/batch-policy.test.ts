import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';

import type { CorrelatedResult } from '../../workflows/index.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { patchIdsOf } from '../support/patch-markers.js';
import { defineTool } from '../../testkit/define-tool.js';

// Per-tool call defaults and a batch's bounded fan-out on the real stack.
const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const TOOL_TIMEOUT_MS = 7_000;
let inFlight = 0;
let mostInFlight = 0;

/** A read that takes a while, so that a batch's reads overlap as much as they are allowed to. */
const slowLookup = defineTool({
  name: 'ops.slowLookup',
  description: 'Looks up a catalogue entry by its key; answers after a short delay.',
  input: z.strictObject({ key: z.string() }),
  output: z.strictObject({ key: z.string() }),
  effect: 'read',
  source: { label: 'catalogue', type: 'database' },
  callDefaults: { timeoutMs: TOOL_TIMEOUT_MS },
  handler: async ({ key }) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 300));
    inFlight--;
    return { data: { key } };
  },
});

const h = useRuntimeHarness('it-batch-policy', { extraTools: [slowLookup] });

test(
  'a batch larger than its limit runs at most that many reads at once and answers in call order, with the tool’s own timeout',
  { timeout: 120_000 },
  async () => {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    const calls = keys.map((key) => ({ name: slowLookup.name, args: { key }, callId: `lookup-${key}` }));
    const results = (await h.temporal.client.workflow.execute('runToolCalls', {
      taskQueue: h.taskQueue,
      workflowId: 'batch-bounded',
      args: [calls, { principal, maxConcurrency: 2 }],
    })) as CorrelatedResult[];
    assert.deepEqual(
      results.map((r) => r.callId),
      calls.map((c) => c.callId),
    );
    assert.deepEqual(
      results.map((r) => r.modelResult.data),
      keys.map((key) => ({ key })),
    );
    assert.equal(mostInFlight, 2);

    const history = await h.temporal.client.workflow.getHandle('batch-bounded').fetchHistory();
    const events = history.events ?? [];
    const timeouts = events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [Number(e.activityTaskScheduledEventAttributes.startToCloseTimeout?.seconds)]
        : [],
    );
    assert.deepEqual(
      timeouts,
      keys.map(() => TOOL_TIMEOUT_MS / 1000),
      "each call gets the tool's timeout",
    );
    assert.deepEqual(patchIdsOf(events), [], 'no patch marker');
    assert.deepEqual(await h.replay(['batch-bounded']), []);
  },
);

test('a batch within its limit fans out at once, without a patch marker', { timeout: 120_000 }, async () => {
  mostInFlight = 0;
  const calls = ['a', 'b', 'c'].map((key) => ({ name: slowLookup.name, args: { key }, callId: `small-${key}` }));
  const results = (await h.temporal.client.workflow.execute('runToolCalls', {
    taskQueue: h.taskQueue,
    workflowId: 'batch-small',
    args: [calls, { principal }],
  })) as CorrelatedResult[];
  assert.deepEqual(
    results.map((r) => r.callId),
    calls.map((c) => c.callId),
  );
  assert.equal(mostInFlight, 3);
  const history = await h.temporal.client.workflow.getHandle('batch-small').fetchHistory();
  assert.equal(
    (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length,
    0,
  );
});
