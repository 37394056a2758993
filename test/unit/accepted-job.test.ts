import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { modelResultSchema, ToolDefinitionError, type ToolEffect } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { describeResult } from '../../src/demo/describe-result.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

// Seed 000's `accepted`: an asynchronous job was accepted and has not finished; the result names its handle.
const ctx = testContext();
const exportTool = (output: unknown, effect: ToolEffect = 'write') =>
  defineTool({
    name: 'reports.export',
    description: 'Start exporting a report; the export runs as a job.',
    input: z.strictObject({ report_id: z.string() }),
    output: z.strictObject({ url: z.string() }),
    effect,
    source: { label: 'reports-api', type: 'http_api' },
    handler: returning(output),
  });

describe('an accepted job', () => {
  it('is accepted: no data, no error, outcome unknown until it finishes, with the job handle and when to poll', async () => {
    const execution = await executeTool(
      exportTool({ accepted: { handle: 'job-81', pollAfterMs: 1500 }, downstream: { requestRef: 'req-1' } }),
      { report_id: 'r-1' },
      ctx,
    );
    const { modelResult, audit } = execution;
    assert.equal(modelResult.status, 'accepted');
    assert.equal(modelResult.data, null);
    assert.equal(modelResult.error, null);
    assert.deepEqual(modelResult.execution, { outcome: 'unknown', delivery: 'fresh', receipt: null });
    assert.deepEqual(modelResult.job, { handle: 'job-81', poll_after_ms: 1500 });
    assert.deepEqual(execution.job, { handle: 'job-81', pollAfterMs: 1500 });
    assert.deepEqual([audit.downstream.request_ref, audit.downstream.status_ref], ['req-1', 'job-81']);
    assert.equal(audit.validation.find((layer) => layer.layer === 'side_effect')?.outcome, 'warned');
    assert.match(describeResult(modelResult), /^accepted · job job-81/);
  });

  it('shows the model a redacted handle, and keeps the handle as given for polling', async () => {
    const { modelResult, job } = await executeTool(
      exportTool({ accepted: { handle: ctx.idempotencyKey } }),
      { report_id: 'r-1' },
      ctx,
    );
    assert.ok(!JSON.stringify(modelResult).includes(ctx.idempotencyKey));
    assert.equal(modelResult.job?.poll_after_ms, null);
    assert.equal(job?.handle, ctx.idempotencyKey);
  });

  it('a read cannot start a job, and a malformed job is refused at the protocol layer', async () => {
    const read = await executeTool(exportTool({ accepted: { handle: 'job-1' } }, 'read'), { report_id: 'r-1' }, ctx);
    assert.equal(read.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
    assert.equal(read.modelResult.error?.layer, 'protocol');
    for (const output of [
      { accepted: { handle: '' } },
      { accepted: { handle: 'j', pollAfterMs: -1 } },
      { accepted: { handle: 'j' }, data: { url: 'x' } },
      { accepted: 'job-1' },
    ]) {
      const { modelResult, audit } = await executeTool(exportTool(output), { report_id: 'r-1' }, ctx);
      assert.equal(
        modelResult.status,
        'unknown',
        `${JSON.stringify(output)}: a write that ran with a malformed answer has an unknown outcome`,
      );
      assert.equal((audit.error_detail as { replaced_code?: string }).replaced_code, 'OUTPUT_CONTRACT_VIOLATION');
    }
  });

  it('the published schema ties accepted to its job, both ways', async () => {
    const { modelResult } = await executeTool(
      exportTool({ accepted: { handle: 'job-81' } }),
      { report_id: 'r-1' },
      ctx,
    );
    assert.ok(modelResultSchema.safeParse(modelResult).success);
    assert.equal(modelResultSchema.safeParse({ ...modelResult, job: undefined }).success, false);
    const succeeded = (await executeTool(orderTool(returning(goodOrderOutput())), { order_id: 'ord_1001' }, ctx))
      .modelResult;
    assert.equal(modelResultSchema.safeParse({ ...succeeded, job: modelResult.job }).success, false);
    assert.equal(
      modelResultSchema.safeParse({ ...modelResult, execution: { ...modelResult.execution, outcome: 'committed' } })
        .success,
      false,
    );
  });

  it('only side-effecting tools may declare poll', () => {
    assert.throws(
      () => defineTool({ ...exportTool({}, 'read'), poll: () => Promise.resolve({ state: 'unknown' }) }),
      ToolDefinitionError,
    );
  });
});
