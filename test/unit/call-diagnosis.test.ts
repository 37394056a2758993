import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspectCommand } from '../../src/cli/commands/inspect.js';
import { withDiagnosis, withholdingProtected } from '../../src/cli/inspect-view.js';
import { diagnoseCall, type CallDiagnosis } from '../../src/contract/call-diagnosis.js';
import { executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import { InMemoryToolStore } from '../../src/store/index.js';
import { inspectCalls } from '../../src/cli/inspect.js';
import { testContext } from '../../testkit/context.js';
import { listTool, refundTool } from '../support/tools.js';

const attentionIn = (diagnosis: CallDiagnosis, level: keyof CallDiagnosis) =>
  diagnosis[level].filter((finding) => finding.verdict === 'attention').map((finding) => finding.finding);

describe('a diagnosis walks one call: call → execution → contract → interpretation (seed 000 §18)', () => {
  it('a cut listing: the call and execution were fine; the model must not read it as every item', async () => {
    const { audit, modelResult } = await executeTool(listTool(40, { maxItems: 5 }), { query: 'pens' }, testContext());
    const diagnosis = diagnoseCall(audit, modelResult);
    assert.deepEqual(attentionIn(diagnosis, 'call'), []);
    assert.ok(diagnosis.call.some((finding) => finding.finding.startsWith('arguments: passed')));
    assert.ok(
      attentionIn(diagnosis, 'interpretation').some((finding) =>
        finding.startsWith('shows 5 of 40 items: not the whole listing'),
      ),
    );
  });

  it('a write that may have happened: the execution level says so, and the model must not report it failed or done', async () => {
    const { audit, modelResult } = await executeTool(
      refundTool(() => Promise.reject(new Error('socket hang up'))),
      { order_id: 'ord_1', amount_cents: 5 },
      testContext(),
    );
    const diagnosis = diagnoseCall(audit, modelResult);
    assert.ok(
      attentionIn(diagnosis, 'execution').some((finding) =>
        finding.startsWith('the side effect may or may not have happened'),
      ),
    );
    assert.ok(
      attentionIn(diagnosis, 'contract').some((finding) => finding.startsWith('status unknown: OUTCOME_UNKNOWN')),
    );
    assert.ok(attentionIn(diagnosis, 'interpretation').includes('must not be reported as failed or as done'));
  });

  it('arguments the tool refused are found at the call level, before anything ran', async () => {
    const { audit, modelResult } = await executeTool(
      refundTool(() => Promise.reject(new Error('unreachable'))),
      { order_id: 'ord_1', amount_cents: -5 },
      testContext(),
    );
    const diagnosis = diagnoseCall(audit, modelResult);
    assert.ok(attentionIn(diagnosis, 'call').some((finding) => finding.startsWith('arguments: failed')));
    assert.ok(diagnosis.execution.some((finding) => finding.finding.includes('the handler did not run')));
  });

  it('`inspect --diagnose` adds it to every call, without quoting a protected field', async () => {
    assert.equal(inspectCommand.parse(['wf-1', '--diagnose']).diagnose, true);
    assert.equal(inspectCommand.parse(['wf-1']).diagnose, false);
    const store = new InMemoryToolStore();
    const ctx = testContext({ temporal: { workflowId: 'wf-1', runId: 'run-1', activityId: '1', attempt: 1 } });
    const execution: ToolExecution = await executeTool(
      refundTool(() => Promise.reject(new Error('socket hang up for idem-wf-42-call-0001'))),
      { order_id: 'ord_1', amount_cents: 5 },
      ctx,
    );
    await store.recordExecution({ execution, workflowId: 'wf-1', runId: 'run-1' });
    const shown = withholdingProtected(
      withDiagnosis(await inspectCalls(store, { workflowId: 'wf-1' })),
      'tool-contract inspect wf-1 --protected',
    );
    const [call] = shown.calls;
    assert.ok(call?.diagnosis !== undefined);
    assert.doesNotMatch(
      JSON.stringify(call.diagnosis),
      new RegExp([ctx.idempotencyKey, ctx.operationId, ctx.principal.subject, 'socket hang up'].join('|')),
    );
  });
});
