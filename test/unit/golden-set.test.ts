import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goldenCaseFromRecording, goldenCaseSchema, type GoldenCase } from '../../src/contract/golden-case.js';
import { runGoldenSet } from '../../src/contract/golden-set.js';
import { RECORDED_CALL_CONTENT_TYPE } from '../../src/contract/funnel/recording-step.js';
import { ToolError } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { FIXED_NOW, testContext } from '../../testkit/context.js';
import { ordersUnder, TOTALS_BEFORE, TOTALS_NOW } from '../support/golden/order-tools.js';
import { goodOrderOutput, orderTool, sampleOrder, type Order } from '../support/tools.js';

const before = ordersUnder(TOTALS_BEFORE);
const after = ordersUnder(TOTALS_NOW);

const at = new Date(FIXED_NOW).toISOString();
const goldenCase = (id: string, handler: GoldenCase['handler'], expect: GoldenCase['expect']): GoldenCase =>
  goldenCaseSchema.parse({ id, tool: 'orders.get', arguments: { order_id: 'ord_1001' }, at, handler, expect });
/** A recorded handler output: the envelope as JSON, as a cases file holds it. */
const output = (change: Partial<Order> = {}, observedAt?: string): GoldenCase['handler'] => ({
  output: JSON.parse(
    JSON.stringify({ ...goodOrderOutput(observedAt), data: { ...sampleOrder, ...change } }),
  ) as GoldenCase['arguments'],
});

const CASES: GoldenCase[] = [
  goldenCase('right-order', output(), { status: 'succeeded', code: null, data: { '/total_cents': 3500 } }),
  // Correct shape, wrong fact: every type and range is fine, but 2000 + 1500 is not 3600.
  goldenCase('wrong-total', output({ total_cents: 3600 }), { status: 'failed', code: 'INVARIANT_VIOLATION' }),
  goldenCase('stale', output({}, '2026-01-01T00:00:00Z'), { status: 'failed', code: 'STALE_DATA' }),
  goldenCase(
    'archived',
    { thrown: { code: 'ORDER_ARCHIVED', details: {} } },
    { status: 'failed', code: 'ORDER_ARCHIVED' },
  ),
];

describe('golden sets', () => {
  it('a new invariant version changes exactly the case with the right shape and the wrong fact', async () => {
    const report = await runGoldenSet(after, CASES, { baseline: before });
    assert.deepEqual(report.changed, ['wrong-total']);
    assert.deepEqual(report.notMet, []);
    const wrong = report.cases.find((c) => c.id === 'wrong-total');
    assert.deepEqual(wrong?.changes, [
      'status: succeeded → failed',
      'code: null → INVARIANT_VIOLATION',
      'failedLayer: null → semantics',
    ]);
    assert.deepEqual(wrong?.ruleChanges, [
      'semantics: invariant:total-matches-lines@1 → invariant:total-matches-lines@2',
      // Later layers decided under the old rules only; the new rule stopped the call first.
      ...['evidence', 'redaction', 'budget'].map(
        (layer) => `${layer}: ${wrong?.baseline?.rules[layer as 'evidence'] ?? ''} → -`,
      ),
    ]);
    const right = report.cases.find((c) => c.id === 'right-order');
    assert.equal(right?.changed, false);
    assert.deepEqual(
      right?.ruleChanges,
      ['semantics: invariant:total-matches-lines@1 → invariant:total-matches-lines@2'],
      'a rule change that changes nothing is still shown',
    );
  });

  it('under the old rule the same set says which expectation it misses', async () => {
    const report = await runGoldenSet(before, CASES);
    assert.deepEqual(report.notMet, ['wrong-total']);
    assert.deepEqual(report.cases.find((c) => c.id === 'wrong-total')?.mismatches, [
      'status: expected failed, got succeeded',
      'code: expected INVARIANT_VIOLATION, got null',
    ]);
    assert.deepEqual(report.changed, [], 'no baseline and nothing recorded: nothing to compare with');
  });

  it('data expectations are checked by pointer', async () => {
    const report = await runGoldenSet(after, [
      goldenCase('total', output(), { status: 'succeeded', code: null, data: { '/total_cents': 9, '/nope': 1 } }),
    ]);
    assert.deepEqual(report.cases[0]?.mismatches, [
      'data /total_cents: expected 9, got 3500',
      'data /nope: expected 1, absent',
    ]);
  });

  it('a case for another tool is refused', async () => {
    await assert.rejects(runGoldenSet(after, [{ ...CASES[0]!, tool: 'payments.refund' }]), RangeError);
  });
});

describe('recorded calls become golden cases', () => {
  const recordingTool = (handler: Parameters<typeof orderTool>[0]) =>
    orderTool(handler, { invariants: [TOTALS_BEFORE], recordRawOutput: true });

  it('recordRawOutput keeps the arguments and the handler output, redacted, as an artifact the audit names', async () => {
    const secret = `sk_live_${'a'.repeat(24)}`;
    const ctx = testContext();
    const returned = {
      ...goodOrderOutput(),
      data: {
        ...sampleOrder,
        total_cents: 3600,
        lines: [
          { sku: secret, cents: 2000 },
          { sku: 'pen', cents: 1500 },
        ],
      },
    };
    const execution = await executeTool(
      recordingTool(() => Promise.resolve(returned)),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(execution.modelResult.status, 'succeeded', 'the old rule accepts the wrong total');
    const artifact = execution.artifacts.find((a) => a.contentType === RECORDED_CALL_CONTENT_TYPE);
    assert.ok(artifact, 'the recording is returned for the host to store');
    assert.deepEqual(execution.audit.recorded_output, {
      artifact_id: `art_${artifact.sha256}`,
      content_type: RECORDED_CALL_CONTENT_TYPE,
      bytes: artifact.bytes,
    });
    assert.ok(!artifact.body.includes(secret), 'secret-shaped text is scrubbed from the recording');

    const recorded = goldenCaseFromRecording(execution.audit, artifact.body, {
      expect: { status: 'failed', code: 'INVARIANT_VIOLATION' },
    });
    assert.equal(recorded.at, new Date(FIXED_NOW).toISOString());
    assert.deepEqual(recorded.arguments, { order_id: 'ord_1001' });
    assert.equal(recorded.recorded?.status, 'succeeded');
    const report = await runGoldenSet(after, [recorded]);
    assert.deepEqual(report.changed, [recorded.id], 'against what was recorded, the new rule changes this call');
    assert.deepEqual(report.notMet, []);
  });

  it('a throw is recorded too, and a call that fails is still recorded', async () => {
    const execution = await executeTool(
      recordingTool(() => Promise.reject(new ToolError('ORDER_ARCHIVED', { archived_at: '2020-01-01' }))),
      { order_id: 'ord_1001' },
      testContext(),
    );
    assert.equal(execution.modelResult.error?.code, 'ORDER_ARCHIVED');
    const artifact = execution.artifacts.find((a) => a.contentType === RECORDED_CALL_CONTENT_TYPE);
    assert.ok(artifact);
    const recorded = goldenCaseFromRecording(execution.audit, artifact.body);
    assert.deepEqual(recorded.handler, { thrown: { code: 'ORDER_ARCHIVED', details: { archived_at: '2020-01-01' } } });
    assert.deepEqual((await runGoldenSet(before, [recorded])).cases[0]?.expectation, 'met');
  });

  it('recording never changes an outcome: what cannot be recorded safely is not recorded', async () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const deeply = () => Promise.resolve({ data: deep }) as never;
    const plain = await executeTool(orderTool(deeply), { order_id: 'ord_1001' }, testContext());
    const recording = await executeTool(recordingTool(deeply), { order_id: 'ord_1001' }, testContext());
    assert.equal(recording.modelResult.error?.code, plain.modelResult.error?.code);
    assert.equal(recording.audit.recorded_output, undefined);
    assert.equal(plain.audit.recorded_output, undefined, 'tools record nothing unless asked');
  });
});
