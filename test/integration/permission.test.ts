import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { AGENT_LOOP_WORKFLOW_TYPE, AGENT_TRANSCRIPT_QUERY, PENDING_APPROVALS_QUERY } from '../../src/wire/names.js';
import type { ScriptedModelConfig } from '../../src/model/scripted-model.js';
import type {
  AgentLoopInput,
  AgentLoopResult,
  CorrelatedResult,
  ModelMessage,
  PendingApproval,
  ToolCallResult,
} from '../../workflows/index.js';
import { eventually } from '../support/eventually.js';
import { FOREIGN_RECORD, OWN_RECORDS, RECORD_TOOLS, recordTools, type RecordToolLog } from '../support/record-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const log: RecordToolLog = { cursors: [], handlerRuns: 0 };
const h = useRuntimeHarness('it-permission', {
  extraTools: recordTools(log),
  cursorKey: 'integration-test-cursor-key-of-32-bytes!',
});
const finished: string[] = [];

async function execute<T>(workflowType: string, workflowId: string, args: unknown[]): Promise<T> {
  const result: unknown = await h.temporal.client.workflow.execute(workflowType, {
    taskQueue: h.taskQueue,
    workflowId,
    args,
  });
  finished.push(workflowId);
  return result as T;
}
const call = (workflowId: string, name: string, args: unknown, as = principal) =>
  execute<ToolCallResult>('runToolCall', workflowId, [name, args, { principal: as }]);
const follow = (workflowId: string, name: string, args: unknown) =>
  execute<ToolCallResult[]>('followListing', workflowId, [name, args, { principal }]);
const recordIds = (results: readonly ToolCallResult[]) =>
  results.flatMap((r) => (r.modelResult.data as { records: { id: string }[] }).records.map((x) => x.id));
const layerOf = async (result: ToolCallResult, layer: string) =>
  (await h.store.getAudit(result.auditRef!.audit_id))!.audit.validation.find((l) => l.layer === layer)!;

test(
  'a cross-tenant record is refused as NOT_FOUND before the model sees it; the audit in Postgres says the scope layer refused it',
  { timeout: 120_000 },
  async () => {
    const result = await call('perm-foreign', RECORD_TOOLS.get, { id: FOREIGN_RECORD.id });
    assert.equal(result.modelResult.error?.code, 'NOT_FOUND');
    assert.equal(result.modelResult.data, null);
    assert.ok(
      !JSON.stringify(result.modelResult).includes('Acquisition plan'),
      'nothing of the record reaches the result',
    );
    assert.equal((await layerOf(result, 'scope')).outcome, 'failed');
    const own = await call('perm-own', RECORD_TOOLS.get, { id: 'rec_03' });
    assert.equal(own.modelResult.status, 'succeeded');
  },
);

test(
  'three-page offset listing through callTool: each result continues at an absolute offset, every record once',
  { timeout: 120_000 },
  async () => {
    const pages = await follow('perm-offset-pages', RECORD_TOOLS.list, {});
    assert.equal(pages.length, 3);
    assert.deepEqual(
      recordIds(pages),
      OWN_RECORDS.map((r) => r.id),
    );
    assert.deepEqual(
      pages.map((p) => p.modelResult.completeness.continue_with?.arguments ?? null),
      [{ offset: 5 }, { offset: 10 }, null],
    );
    assert.deepEqual(
      pages.map((p) => p.modelResult.completeness.range),
      [
        { from: 1, to: 5, of: 12 },
        { from: 6, to: 10, of: 12 },
        { from: 11, to: 12, of: 12 },
      ],
    );
  },
);

test(
  'three-page cursor listing through callTool: sealed cursors only, the handler sees the upstream ones',
  { timeout: 120_000 },
  async () => {
    const before = log.cursors.length;
    const pages = await follow('perm-cursor-pages', RECORD_TOOLS.scan, {});
    assert.equal(pages.length, 3);
    assert.deepEqual(
      recordIds(pages),
      OWN_RECORDS.map((r) => r.id),
    );
    assert.deepEqual(
      log.cursors.slice(before),
      [null, null, 'upstream-page-1'],
      'the first upstream page twice (cut to its budget), then the second',
    );
    for (const page of pages)
      assert.ok(!JSON.stringify(page.modelResult).includes('upstream-page'), 'the model never sees an upstream cursor');
  },
);

test(
  'forged, foreign and expired cursors are INVALID_ARGUMENTS, refused before the handler: no handler runs',
  { timeout: 120_000 },
  async () => {
    const first = await call('perm-cursor-source', RECORD_TOOLS.scan, {});
    const sealed = first.modelResult.completeness.continue_with?.arguments['cursor'] as string;
    const [prefix, payload, mac] = sealed.split('.') as [string, string, string];
    const edited = Buffer.from(
      JSON.stringify({
        ...(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object),
        c: 'upstream-page-1',
      }),
    ).toString('base64url');
    const runs = log.handlerRuns;
    const forged = await call('perm-cursor-forged', RECORD_TOOLS.scan, { cursor: `${prefix}.${edited}.${mac}` });
    const raw = await call('perm-cursor-raw', RECORD_TOOLS.scan, { cursor: 'upstream-page-1' });
    const foreign = await call(
      'perm-cursor-foreign',
      RECORD_TOOLS.scan,
      { cursor: sealed },
      { tenant: 'tenant-acme', subject: 'user-99' },
    );
    const brief = await call('perm-cursor-brief', RECORD_TOOLS.scanBrief, {});
    const briefRuns = log.handlerRuns;
    const expired = await call(
      'perm-cursor-expired',
      RECORD_TOOLS.scanBrief,
      brief.modelResult.completeness.continue_with?.arguments ?? {},
    );
    for (const refused of [forged, raw, foreign, expired]) {
      assert.equal(refused.modelResult.error?.code, 'INVALID_ARGUMENTS');
      assert.equal(refused.modelResult.execution.outcome, 'not_started');
    }
    assert.equal(log.handlerRuns, briefRuns, 'the expired cursor ran nothing');
    assert.equal(briefRuns - runs, 1, 'of all these calls only the fresh listing ran its handler');
    // Refused by the tool activity's own input layer, before its handler: the one activity the call scheduled.
    const history = await h.temporal.client.workflow.getHandle('perm-cursor-forged').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    assert.deepEqual(scheduled, [RECORD_TOOLS.scan]);
  },
);

test(
  'authorize refuses a principal before dispatch (PERMISSION_DENIED, audited); the permitted principal runs',
  { timeout: 120_000 },
  async () => {
    const runs = log.handlerRuns;
    const denied = await call(
      'perm-export-denied',
      RECORD_TOOLS.export,
      { format: 'csv' },
      { tenant: 'tenant-acme', subject: 'intern-7' },
    );
    assert.equal(denied.modelResult.error?.code, 'PERMISSION_DENIED');
    assert.equal(log.handlerRuns, runs);
    const layer = await layerOf(denied, 'authorization');
    assert.deepEqual([layer.outcome, layer.reason], ['failed', 'intern-7 may not export records']);
    assert.ok(!JSON.stringify(denied.modelResult).includes('intern-7'));
    const allowed = await call('perm-export-allowed', RECORD_TOOLS.export, { format: 'csv' });
    assert.equal(allowed.modelResult.status, 'succeeded');
  },
);

test('a destructive tool waits for approval without saying so', { timeout: 120_000 }, async () => {
  const handle = await h.temporal.client.workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId: 'perm-purge',
    args: [RECORD_TOOLS.purge, {}, { principal, approvalTimeoutMs: 60_000 }],
  });
  const pending = await eventually(
    'the purge to wait for approval',
    async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
    60_000,
  );
  assert.equal(pending.preview.tool, RECORD_TOOLS.purge);
  await handle.terminate('test done');
});

test(
  'a per-workflow call limit from the call options refuses the call past it as CALL_LIMIT_EXCEEDED, not started',
  { timeout: 120_000 },
  async () => {
    const calls = [
      { name: RECORD_TOOLS.get, args: { id: 'rec_01' } },
      { name: RECORD_TOOLS.get, args: { id: 'rec_02' } },
    ];
    const results = await execute<CorrelatedResult[]>('runToolCalls', 'perm-limit-options', [
      calls,
      { principal, callLimits: { [RECORD_TOOLS.get]: 1 } },
    ]);
    assert.deepEqual(
      results.map((r) => r.modelResult.error?.code ?? r.modelResult.status),
      ['succeeded', 'CALL_LIMIT_EXCEEDED'],
    );
    assert.equal(results[1]!.modelResult.execution.outcome, 'not_started');
  },
);

function startAgent(
  workflowId: string,
  script: ScriptedModelConfig,
  input: Partial<AgentLoopInput> = {},
): Promise<WorkflowHandle> {
  finished.push(workflowId);
  const args: AgentLoopInput = {
    goal: 'Review the records.',
    allowedTools: Object.values(RECORD_TOOLS),
    model: { kind: 'scripted', script },
    maxTurns: 8,
    principal,
    ...input,
  };
  return h.temporal.client.workflow.start(AGENT_LOOP_WORKFLOW_TYPE, {
    taskQueue: h.taskQueue,
    workflowId,
    args: [args],
  });
}
type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
const toolMessages = (transcript: ModelMessage[]) => transcript.filter((m): m is ToolMessage => m.role === 'tool');

test(
  "agent loop: the model is refused another tenant's record and pages a listing three times with the cursors it was given",
  { timeout: 180_000 },
  async () => {
    const cursorOf = { $result: { tool: RECORD_TOOLS.scan, pointer: '/completeness/continue_with/arguments/cursor' } };
    const handle = await startAgent('perm-agent-pages', {
      turns: [
        { kind: 'tool_calls', calls: [{ name: RECORD_TOOLS.get, arguments: { id: FOREIGN_RECORD.id } }] },
        { kind: 'tool_calls', calls: [{ name: RECORD_TOOLS.scan, arguments: {} }] },
        { kind: 'tool_calls', calls: [{ name: RECORD_TOOLS.scan, arguments: { cursor: cursorOf } }] },
        { kind: 'tool_calls', calls: [{ name: RECORD_TOOLS.scan, arguments: { cursor: cursorOf } }] },
        { kind: 'final', text: 'All twelve records reviewed.' },
      ],
    });
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'final');
    const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
    const [foreign, ...pages] = toolMessages(transcript);
    assert.equal(foreign?.result.error?.code, 'NOT_FOUND');
    assert.ok(
      !JSON.stringify(transcript).includes('Acquisition plan'),
      'the foreign record never enters the conversation',
    );
    assert.equal(pages.length, 3);
    assert.deepEqual(
      recordIds(pages.map((p) => ({ modelResult: p.result, auditRef: null }))),
      OWN_RECORDS.map((r) => r.id),
    );
    assert.equal(pages[2]!.result.completeness.next, null);
  },
);

test("agent loop: a tool's call limit holds across continue-as-new", { timeout: 180_000 }, async () => {
  const count = { kind: 'tool_calls' as const, calls: [{ name: RECORD_TOOLS.count, arguments: {} }] };
  const handle = await startAgent(
    'perm-agent-limit',
    { turns: [count, count, count, { kind: 'final', text: 'Counted.' }] },
    { turnsPerRun: 1 },
  );
  const result = (await handle.result()) as AgentLoopResult;
  assert.equal(result.status, 'final');
  assert.ok(result.runs >= 3, `the loop continued as new between the calls (${result.runs} runs)`);
  const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
  assert.deepEqual(
    toolMessages(transcript).map((m) => m.result.error?.code ?? m.result.status),
    ['succeeded', 'succeeded', 'CALL_LIMIT_EXCEEDED'],
  );
});

test(
  'replay: the recorded histories of these workflows replay against the current workflow code',
  { timeout: 180_000 },
  async () => {
    assert.deepEqual(await h.replay(finished), []);
  },
);
