import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliError, EXIT_CODES } from '../../../src/cli/cli-error.js';
import { reportMetrics } from '../../../src/cli/metrics.js';
import { ToolError, type ToolExecution } from '../../../src/index.js';
import type { ContractMetrics } from '../../../src/store/contract-metrics.js';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import type { ToolStore } from '../../../src/store/tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { goodOrderOutput, orderTool, refundTool, returning, sampleOrder } from '../../support/tools.js';
import { rejectsWith } from './assert-store-error.js';
import { runCall } from '../../../testkit/store-tools.js';

/** One tool behaviour per catalogued outcome the metrics count. */
const behaviours = {
  ok: orderTool(returning(goodOrderOutput())),
  schema: orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, success: true } })),
  invariant: orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, total_cents: 1 } })),
  stale: orderTool(returning(goodOrderOutput('2026-01-01T00:00:00Z'))),
  protocol: orderTool(() => Promise.reject(new ToolError('PROTOCOL_ERROR'))),
  unknown: refundTool(() => Promise.reject(new Error('ECONNRESET'))),
} as const;
type Behaviour = keyof typeof behaviours;

const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const T1 = T0 + 60_000;
let clock = T0;
const now = () => new Date(clock);

async function executions(kinds: readonly Behaviour[], offset: number): Promise<ToolExecution[]> {
  return Promise.all(
    kinds.map((kind, i) =>
      runCall(behaviours[kind], kind === 'unknown' ? { order_id: 'ord_1', amount_cents: 500 } : { order_id: 'ord_1001' }, { workflowId: 'wf-metrics', callId: `c-${offset + i}` }),
    ),
  );
}

/**
 * Records a known history with the store's clock under control: 4 attempts and one reconciliation (settled after
 * 1 s) at T0; from T1 on, 6 attempts and four reconciliations (settled after 3 s and 5 s, one escalated, one open).
 */
async function recordKnownHistory(store: ToolStore): Promise<void> {
  clock = T0;
  for (const execution of await executions(['ok', 'ok', 'schema', 'invariant'], 0)) await store.recordExecution({ execution, workflowId: 'wf-metrics', runId: null });
  const open = (key: string) => store.openReconciliation({ idempotencyKey: key, workflowId: 'wf-metrics', callId: `call-${key}`, tool: 'payments.refund', auditId: null });
  const settle = (key: string) => store.settleReconciliation({ idempotencyKey: key, outcome: 'committed', via: 'receipt', receiptExternalId: `re_${key}`, resolvedBy: null, note: null });
  await open('k-1');
  clock += 1000;
  await settle('k-1');
  clock = T1;
  for (const execution of await executions(['ok', 'ok', 'schema', 'stale', 'protocol', 'unknown'], 4)) await store.recordExecution({ execution, workflowId: 'wf-metrics', runId: null });
  for (const key of ['k-2', 'k-3', 'k-4', 'k-5']) await open(key);
  clock += 3000;
  await settle('k-2');
  clock += 2000;
  await settle('k-3');
  await store.escalateReconciliation({ idempotencyKey: 'k-4', reason: 'deadline passed' });
}

const EXPECTED_ALL: ContractMetrics = {
  since: null,
  attempts: 10,
  accepted: 4,
  failuresByCode: { INVARIANT_VIOLATION: 1, OUTCOME_UNKNOWN: 1, OUTPUT_CONTRACT_VIOLATION: 2, PROTOCOL_ERROR: 1, STALE_DATA: 1 },
  schemaFailure: { count: 2, rate: 0.2 },
  invariantFailure: { count: 1, rate: 0.1 },
  staleData: { count: 1, rate: 0.1 },
  protocolFailure: { count: 1, rate: 0.1 },
  unknownOutcomes: { count: 1, rate: 0.1 },
  // Settled after 1 s, 3 s and 5 s: percentile_cont(0.95) = 3000 + 0.9 × 2000.
  reconciliation: { unknownSideEffects: 2, escalated: 1, settled: 3, timeToSettleMs: { p50: 3000, p95: 4800, max: 5000 } },
};

const EXPECTED_SINCE_T1: ContractMetrics = {
  since: new Date(T1).toISOString(),
  attempts: 6,
  accepted: 2,
  failuresByCode: { OUTCOME_UNKNOWN: 1, OUTPUT_CONTRACT_VIOLATION: 1, PROTOCOL_ERROR: 1, STALE_DATA: 1 },
  schemaFailure: { count: 1, rate: 1 / 6 },
  invariantFailure: { count: 0, rate: 0 },
  staleData: { count: 1, rate: 1 / 6 },
  protocolFailure: { count: 1, rate: 1 / 6 },
  unknownOutcomes: { count: 1, rate: 1 / 6 },
  reconciliation: { unknownSideEffects: 2, escalated: 1, settled: 2, timeToSettleMs: { p50: 4000, p95: 4900, max: 5000 } },
};

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('metrics');
});
after(async () => db?.close());

for (const [name, makeStore] of [
  ['Postgres', () => db.store({ now })],
  ['in-memory', () => new InMemoryToolStore({ now })],
] as const) {
  describe(`contract metrics (${name} store)`, () => {
    let store: ToolStore;
    before(async () => {
      store = makeStore();
      assert.deepEqual(await store.contractMetrics(), {
        ...EXPECTED_ALL,
        attempts: 0,
        accepted: 0,
        failuresByCode: {},
        schemaFailure: { count: 0, rate: null },
        invariantFailure: { count: 0, rate: null },
        staleData: { count: 0, rate: null },
        protocolFailure: { count: 0, rate: null },
        unknownOutcomes: { count: 0, rate: null },
        reconciliation: { unknownSideEffects: 0, escalated: 0, settled: 0, timeToSettleMs: null },
      }, 'an empty store has no rates, not zero rates');
      await recordKnownHistory(store);
    });

    it('counts every audited attempt by its catalogued code and derives the rates', async () => {
      assert.deepEqual(await store.contractMetrics(), EXPECTED_ALL);
    });

    it('narrows to audits recorded and reconciliations opened since a time (any offset)', async () => {
      assert.deepEqual(await store.contractMetrics({ since: new Date(T1).toISOString() }), EXPECTED_SINCE_T1);
      assert.deepEqual(await store.contractMetrics({ since: '2026-11-30T13:01:00+01:00' }), EXPECTED_SINCE_T1);
      assert.equal((await store.contractMetrics({ since: '2027-01-01T00:00:00Z' })).attempts, 0);
    });

    it('keeps reconciliationMetrics() equal to the all-time reconciliation figures', async () => {
      assert.deepEqual(await store.reconciliationMetrics(), EXPECTED_ALL.reconciliation);
    });

    it('refuses a since that is not an ISO timestamp with an offset', async () => {
      for (const since of ['yesterday', '2026-11-30', '2026-11-30T12:00:00', '2026-13-45T99:00:00Z']) {
        await rejectsWith(store.contractMetrics({ since }), 'INVALID_ARGUMENTS', 'invalid_input');
      }
    });
  });
}

describe('reportMetrics (what `tool-contract metrics` prints)', () => {
  it('returns the figures and a Markdown table of them', async () => {
    const store = new InMemoryToolStore({ now });
    await recordKnownHistory(store);
    const report = await reportMetrics(store);
    assert.deepEqual(report.metrics, EXPECTED_ALL);
    assert.match(report.table, /^\| metric \| value \|$/m);
    assert.match(report.table, /^\| schema failure rate \(OUTPUT_CONTRACT_VIOLATION\) \| 20\.0 % \(2\) \|$/m);
    assert.match(report.table, /^\| time to settle \| p50 3\.00 s · p95 4\.80 s · max 5\.00 s \|$/m);
    assert.equal((await reportMetrics(store, { since: new Date(T1).toISOString() })).metrics.attempts, 6);
  });

  it('turns a malformed --since into a usage error', async () => {
    await assert.rejects(reportMetrics(new InMemoryToolStore(), { since: 'last week' }), (error: unknown) => error instanceof CliError && error.exitCode === EXIT_CODES.usage);
  });
});
