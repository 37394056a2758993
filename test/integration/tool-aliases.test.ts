import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';

import type { ToolCallResult } from '../../workflows/index.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { defineTool } from '../../testkit/define-tool.js';

// A renamed tool keeps serving calls made under its earlier name: the worker registers an activity for each alias,
// and the call runs as the name it was made under (its result, key and audit say that name).
const principal = { tenant: 'tenant-acme', subject: 'user-42' };

const renamed = defineTool({
  name: 'ops.findInvoice',
  aliases: ['ops.getInvoice'],
  description: 'Finds an invoice by its number.',
  input: z.strictObject({ invoice: z.string() }),
  output: z.strictObject({ invoice: z.string(), paid: z.boolean() }),
  effect: 'read',
  source: { label: 'billing', type: 'http_api' },
  handler: ({ invoice }) => Promise.resolve({ data: { invoice, paid: true } }),
});

const h = useRuntimeHarness('it-tool-aliases', { extraTools: [renamed] });

test(
  'a call under a renamed tool’s earlier name is scheduled and served under that name',
  { timeout: 120_000 },
  async () => {
    const result = (await h.temporal.client.workflow.execute('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'alias-old-name',
      args: ['ops.getInvoice', { invoice: 'inv-7' }, { principal }],
    })) as ToolCallResult;
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(result.modelResult.tool, 'ops.getInvoice');
    assert.deepEqual(result.modelResult.data, { invoice: 'inv-7', paid: true });
    const history = await h.temporal.client.workflow.getHandle('alias-old-name').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    assert.deepEqual(scheduled, ['ops.getInvoice']);
    const stored = result.auditRef === null ? null : await h.store.getAudit(result.auditRef.audit_id);
    assert.equal(stored?.audit.tool, 'ops.getInvoice');
  },
);
