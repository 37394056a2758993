import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliError, EXIT_CODES } from '../../../src/cli/cli-error.js';
import { recordedCases } from '../../../src/cli/recorded-cases.js';
import { runGoldenSet } from '../../../src/contract/golden-set.js';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import type { ToolStore } from '../../../src/store/tool-store.js';
import { ordersUnder, TOTALS_BEFORE, TOTALS_NOW } from '../../support/golden/order-tools.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { goodOrderOutput, orderTool, returning, sampleOrder } from '../../support/tools.js';
import { runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('recorded-calls');
});
after(async () => db?.close());

for (const [name, makeStore] of [
  ['Postgres', () => db.store()],
  ['in-memory', () => new InMemoryToolStore()],
] as const) {
  describe(`recorded calls become golden cases (${name} store)`, () => {
    let store: ToolStore;
    before(() => {
      store = makeStore();
    });

    it('stores the recording with the audit, and `cases` turns the workflow into cases a rule change is tested on', async () => {
      const recording = (total: number) =>
        orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, total_cents: total } }), {
          invariants: [TOTALS_BEFORE],
          recordRawOutput: true,
        });
      for (const [callId, total] of [
        ['c-right', 3500],
        ['c-wrong', 3600],
      ] as const) {
        const execution = await runCall(
          recording(total),
          { order_id: 'ord_1001' },
          { workflowId: 'wf-recorded', callId },
        );
        await store.recordExecution({ execution, workflowId: 'wf-recorded', runId: null });
      }
      const plain = await runCall(
        orderTool(returning(goodOrderOutput())),
        { order_id: 'ord_1001' },
        { workflowId: 'wf-recorded', callId: 'c-plain' },
      );
      await store.recordExecution({ execution: plain, workflowId: 'wf-recorded', runId: null });

      const cases = await recordedCases(store, { workflowId: 'wf-recorded' });
      assert.deepEqual(
        cases.map((c) => [c.id, c.expect?.status, c.recorded?.status]),
        [
          ['orders.get/c-right/1', 'succeeded', 'succeeded'],
          ['orders.get/c-wrong/1', 'succeeded', 'succeeded'],
        ],
        'only tools that record their calls give cases',
      );
      const report = await runGoldenSet(ordersUnder(TOTALS_NOW), cases);
      assert.deepEqual(report.changed, ['orders.get/c-wrong/1']);
      assert.deepEqual(
        report.notMet,
        ['orders.get/c-wrong/1'],
        'its expectation is what happened then, until a person corrects it',
      );
      assert.equal((await recordedCases(store, { workflowId: 'wf-recorded', callId: 'c-right' })).length, 1);
    });

    it('a workflow without recorded calls is not found', async () => {
      await assert.rejects(
        recordedCases(store, { workflowId: 'wf-none' }),
        (error: unknown) => error instanceof CliError && error.exitCode === EXIT_CODES.notFound,
      );
    });
  });
}
