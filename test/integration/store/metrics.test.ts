import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { CliError, EXIT_CODES } from '../../../src/cli/cli-error.js';
import { reportMetrics } from '../../../src/cli/metrics.js';
import { ToolError } from '../../../src/index.js';
import { type ToolExecution } from '../../../src/contract/execute-tool.js';
import type { ContractMetrics } from '../../../src/store/contract-metrics.js';
import { auditRefOf } from '../../../src/store/ledger.js';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import type { ToolStore } from '../../../src/store/tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { goodOrderOutput, orderTool, refundTool, returning, sampleOrder } from '../../support/tools.js';
import { rejectsWith } from './assert-store-error.js';
import { runCall } from '../../../testkit/store-tools.js';
import { defineTool } from '../../../testkit/define-tool.js';

/** A list whose evidence cites its last item, which the item budget cuts: the evidence is omitted with a warning. */
function pagedTool() {
  return defineTool({
    name: 'catalog.pages',
    description: 'Lists pages.',
    input: z.strictObject({}),
    output: z.strictObject({ pages: z.array(z.string()) }),
    effect: 'read',
    source: { label: 'catalog', type: 'search_index' },
    budget: { itemsPointer: '/pages', maxItems: 2 },
    handler: () =>
      Promise.resolve({
        data: { pages: ['a', 'b', 'c'] },
        evidence: [{ kind: 'index_hit', locator: 'pages/c', supports: ['/pages/2'] }],
      }),
  });
}

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
const T2 = T0 + 3_600_000;
let clock = T0;
const now = () => new Date(clock);

async function executions(kinds: readonly Behaviour[], offset: number): Promise<ToolExecution[]> {
  return Promise.all(
    kinds.map((kind, i) =>
      runCall(
        behaviours[kind],
        kind === 'unknown' ? { order_id: 'ord_1', amount_cents: 500 } : { order_id: 'ord_1001' },
        { workflowId: 'wf-metrics', callId: `c-${offset + i}` },
      ),
    ),
  );
}

/**
 * Records a known history with the store's clock under control: 4 attempts and one reconciliation (settled after
 * 1 s) at T0; from T1 on, 6 attempts and four reconciliations (settled after 3 s and 5 s, one escalated, one open).
 */
async function recordKnownHistory(store: ToolStore): Promise<void> {
  clock = T0;
  for (const execution of await executions(['ok', 'ok', 'schema', 'invariant'], 0))
    await store.recordExecution({ execution, workflowId: 'wf-metrics', runId: null });
  const open = (key: string) =>
    store.openReconciliation({
      idempotencyKey: key,
      workflowId: 'wf-metrics',
      callId: `call-${key}`,
      tool: 'payments.refund',
      auditId: null,
    });
  const settle = (key: string) =>
    store.settleReconciliation({
      idempotencyKey: key,
      outcome: 'committed',
      via: 'receipt',
      receiptExternalId: `re_${key}`,
      resolvedBy: null,
      note: null,
    });
  await open('k-1');
  clock += 1000;
  await settle('k-1');
  clock = T1;
  for (const execution of await executions(['ok', 'ok', 'schema', 'stale', 'protocol', 'unknown'], 4))
    await store.recordExecution({ execution, workflowId: 'wf-metrics', runId: null });
  for (const key of ['k-2', 'k-3', 'k-4', 'k-5']) await open(key);
  clock += 3000;
  await settle('k-2');
  clock += 2000;
  await settle('k-3');
  await store.escalateReconciliation({ idempotencyKey: 'k-4', reason: 'deadline passed' });
}

/** The figures every window has, besides the breakdowns by tool and rule version. */
type Overall = Omit<ContractMetrics, 'tool' | 'falseAccepts' | 'falseRejects' | 'byTool' | 'byRule'>;
const BREAKDOWNS = new Set(['tool', 'falseAccepts', 'falseRejects', 'byTool', 'byRule']);
const overall = (metrics: ContractMetrics): Overall =>
  Object.fromEntries(Object.entries(metrics).filter(([key]) => !BREAKDOWNS.has(key))) as Overall;

const EXPECTED_ALL: Overall = {
  since: null,
  attempts: 10,
  accepted: 4,
  failuresByCode: {
    INVARIANT_VIOLATION: 1,
    OUTCOME_UNKNOWN: 1,
    OUTPUT_CONTRACT_VIOLATION: 2,
    PROTOCOL_ERROR: 1,
    STALE_DATA: 1,
  },
  schemaFailure: { count: 2, rate: 0.2 },
  invariantFailure: { count: 1, rate: 0.1 },
  staleData: { count: 1, rate: 0.1 },
  protocolFailure: { count: 1, rate: 0.1 },
  unknownOutcomes: { count: 1, rate: 0.1 },
  // Settled after 1 s, 3 s and 5 s: percentile_cont(0.95) = 3000 + 0.9 × 2000.
  reconciliation: {
    unknownSideEffects: 2,
    escalated: 1,
    settled: 3,
    timeToSettleMs: { p50: 3000, p95: 4800, max: 5000 },
  },
};

const EXPECTED_SINCE_T1: Overall = {
  since: new Date(T1).toISOString(),
  attempts: 6,
  accepted: 2,
  failuresByCode: { OUTCOME_UNKNOWN: 1, OUTPUT_CONTRACT_VIOLATION: 1, PROTOCOL_ERROR: 1, STALE_DATA: 1 },
  schemaFailure: { count: 1, rate: 1 / 6 },
  invariantFailure: { count: 0, rate: 0 },
  staleData: { count: 1, rate: 1 / 6 },
  protocolFailure: { count: 1, rate: 1 / 6 },
  unknownOutcomes: { count: 1, rate: 1 / 6 },
  reconciliation: {
    unknownSideEffects: 2,
    escalated: 1,
    settled: 2,
    timeToSettleMs: { p50: 4000, p95: 4900, max: 5000 },
  },
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
      assert.deepEqual(
        overall(await store.contractMetrics()),
        {
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
        },
        'an empty store has no rates, not zero rates',
      );
      await recordKnownHistory(store);
    });

    it('counts every audited attempt by its catalogued code and derives the rates', async () => {
      assert.deepEqual(overall(await store.contractMetrics()), EXPECTED_ALL);
    });

    it('narrows to audits recorded and reconciliations opened since a time (any offset)', async () => {
      assert.deepEqual(overall(await store.contractMetrics({ since: new Date(T1).toISOString() })), EXPECTED_SINCE_T1);
      assert.deepEqual(overall(await store.contractMetrics({ since: '2026-11-30T13:01:00+01:00' })), EXPECTED_SINCE_T1);
      assert.equal((await store.contractMetrics({ since: '2027-01-01T00:00:00Z' })).attempts, 0);
    });

    it('breaks the figures down by tool, with the share of its attempts each layer failed or warned', async () => {
      const metrics = await store.contractMetrics();
      assert.equal(metrics.tool, null);
      assert.deepEqual(
        metrics.byTool.map((t) => [t.tool, t.attempts, t.accepted]),
        [
          ['orders.get', 9, 4],
          ['payments.refund', 1, 0],
        ],
      );
      const [orders, refund] = metrics.byTool;
      assert.deepEqual(
        orders?.layers.map((l) => [l.layer, l.failed.count, l.warned.count]),
        [
          ['input', 0, 0],
          ['protocol', 1, 0],
          ['schema', 2, 0],
          ['semantics', 1, 0],
          ['evidence', 1, 0],
          ['redaction', 0, 0],
          ['budget', 0, 0],
        ],
      );
      assert.deepEqual(orders?.layers.find((l) => l.layer === 'schema')?.failed, { count: 2, rate: 2 / 9 });
      assert.deepEqual(orders?.unknownOutcomes, { count: 0, rate: 0 });
      assert.deepEqual(refund?.unknownOutcomes, { count: 1, rate: 1 });
      assert.deepEqual(refund?.reconciliation, EXPECTED_ALL.reconciliation, 'every reconciliation round is a refund');
      const one = await store.contractMetrics({ tool: 'payments.refund' });
      assert.deepEqual(
        [one.tool, one.attempts, one.byTool.map((t) => t.tool)],
        ['payments.refund', 1, ['payments.refund']],
      );
      assert.deepEqual(one.reconciliation, EXPECTED_ALL.reconciliation);
      assert.equal((await store.contractMetrics({ tool: 'orders.get' })).reconciliation.settled, 0);
    });

    it('gives every rule version of every layer its own figures', async () => {
      const rules = (await store.contractMetrics()).byRule.filter((rule) => rule.tool === 'orders.get');
      assert.deepEqual(
        rules
          .filter((rule) => rule.layer === 'protocol' || rule.layer === 'semantics')
          .map((rule) => [rule.layer, rule.ruleVersion, rule.decided, rule.passed, rule.failed.count]),
        [
          ['protocol', 'handler-reported', 1, 0, 1],
          ['protocol', 'json-shape@1;maxDepth=32', 8, 8, 0],
          ['semantics', 'invariant:total-equals-lines@2', 6, 5, 1],
        ],
      );
      const semantics = rules.find((rule) => rule.layer === 'semantics');
      assert.deepEqual(semantics?.failed, { count: 1, rate: 1 / 6 });
      assert.deepEqual(
        [semantics?.accepted, semantics?.falseAccepts],
        [4, { count: 0, rate: 0 }],
        'no labels yet: a rate of 0, not unknown',
      );
    });

    it('computes false acceptance and rejection rates per rule version once outcomes are labelled', async () => {
      const audits = await store.listAudits({ workflowId: 'wf-metrics' });
      const accepted = audits.find((a) => a.audit.error_code === null);
      const refusedByInvariant = audits.find((a) => a.audit.error_code === 'INVARIANT_VIOLATION');
      assert.ok(accepted && refusedByInvariant);
      const label = await store.labelOutcome(
        auditRefOf(accepted.audit),
        'false_accept',
        'reviewer@example.com',
        'the total was wrong',
      );
      assert.match(label.labelId, /^lbl_[0-9a-f]{32}$/);
      assert.deepEqual(
        await store.labelOutcome(
          auditRefOf(accepted.audit),
          'false_accept',
          'reviewer@example.com',
          'the total was wrong',
        ),
        label,
        'labelling again is a no-op',
      );
      await store.labelOutcome(auditRefOf(accepted.audit), 'false_accept', 'second@example.com', null);
      await store.labelOutcome(auditRefOf(refusedByInvariant.audit), 'false_reject', 'reviewer@example.com', null);

      const metrics = await store.contractMetrics();
      assert.deepEqual(
        [metrics.falseAccepts, metrics.falseRejects],
        [
          { count: 1, rate: 1 / 4 },
          { count: 1, rate: 1 / 6 },
        ],
        'an attempt labelled twice counts once',
      );
      const orders = metrics.byTool.find((t) => t.tool === 'orders.get');
      assert.deepEqual(
        [orders?.falseAccepts, orders?.falseRejects],
        [
          { count: 1, rate: 1 / 4 },
          { count: 1, rate: 1 / 5 },
        ],
      );
      const rule = (layer: string) => metrics.byRule.find((r) => r.tool === 'orders.get' && r.layer === layer);
      assert.deepEqual(
        [rule('semantics')?.falseAccepts, rule('semantics')?.falseRejects],
        [
          { count: 1, rate: 1 / 4 },
          { count: 1, rate: 1 },
        ],
      );
      assert.deepEqual(rule('schema')?.falseRejects, { count: 0, rate: 0 }, 'the invariant refused it, not the schema');
      assert.equal((await store.listOutcomeLabels([accepted.auditId])).length, 2);
    });

    it('refuses a label that does not fit the attempt, names another record, or names none', async () => {
      const [audit] = (await store.listAudits({ workflowId: 'wf-metrics' })).filter((a) => a.audit.error_code === null);
      assert.ok(audit);
      const ref = auditRefOf(audit.audit);
      await rejectsWith(
        store.labelOutcome(ref, 'false_reject', 'reviewer@example.com', null),
        'INVALID_ARGUMENTS',
        'label_mismatch',
      );
      await rejectsWith(
        store.labelOutcome({ ...ref, result_sha256: 'f'.repeat(64) }, 'false_accept', 'reviewer@example.com', null),
        'PROTOCOL_ERROR',
        'digest_mismatch',
      );
      await rejectsWith(
        store.labelOutcome({ ...ref, audit_id: 'aud_missing' }, 'false_accept', 'reviewer@example.com', null),
        'NOT_FOUND',
        'audit_not_found',
      );
      await rejectsWith(
        store.labelOutcome(ref, 'maybe' as never, 'reviewer@example.com', null),
        'INVALID_ARGUMENTS',
        'invalid_input',
      );
      await rejectsWith(store.labelOutcome(ref, 'false_accept', '', null), 'INVALID_ARGUMENTS', 'invalid_input');
    });

    it('counts the warnings results carried: stale data let through, unresolved conflicts, omitted evidence', async () => {
      clock = T2;
      const mirror = orderTool(
        returning({
          ...goodOrderOutput('2026-01-01T00:00:00Z'),
          conflicts: [
            {
              field: '/status',
              values: [
                { value: 'paid', source: 'orders-db' },
                { value: 'shipped', source: 'orders-replica' },
              ],
            },
          ],
        }),
        {
          name: 'orders.mirror',
          freshness: { maxAgeMs: 60_000, onStale: 'warn' },
        },
      );
      const pages = pagedTool();
      const runs = [
        await runCall(mirror, { order_id: 'ord_1001' }, { workflowId: 'wf-warnings', callId: 'w-1' }),
        await runCall(pages, {}, { workflowId: 'wf-warnings', callId: 'w-2' }),
      ];
      for (const execution of runs) await store.recordExecution({ execution, workflowId: 'wf-warnings', runId: null });
      const since = new Date(T2).toISOString();
      const [mirrored] = (await store.contractMetrics({ since, tool: 'orders.mirror' })).byTool;
      assert.deepEqual(
        [mirrored?.staleWarnings, mirrored?.conflicts, mirrored?.omittedEvidence],
        [
          { count: 1, rate: 1 },
          { count: 1, rate: 1 },
          { count: 0, rate: 0 },
        ],
      );
      assert.deepEqual(mirrored?.layers.find((l) => l.layer === 'evidence')?.warned, { count: 1, rate: 1 });
      const [paged] = (await store.contractMetrics({ since, tool: 'catalog.pages' })).byTool;
      assert.deepEqual(paged?.omittedEvidence, { count: 1, rate: 1 });
      assert.deepEqual(paged?.layers.find((l) => l.layer === 'budget')?.warned, { count: 1, rate: 1 });
      assert.deepEqual(
        Object.keys(
          (await store.contractMetrics({ since })).byTool.find((t) => t.tool === 'orders.mirror')?.warnings ?? {},
        ),
        ['CONFLICTING_SOURCES', 'STALE_DATA'],
      );
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
    assert.deepEqual(overall(report.metrics), EXPECTED_ALL);
    assert.match(report.text, /^\| metric \| value \|$/m);
    assert.match(report.text, /^\| schema failure rate \(OUTPUT_CONTRACT_VIOLATION\) \| 20\.0 % \(2\) \|$/m);
    assert.match(report.text, /^\| time to settle \| p50 3\.00 s · p95 4\.80 s · max 5\.00 s \|$/m);
    assert.match(
      report.text,
      /^\| orders\.get \| 9 \| 4 \| protocol 11\.1 % \(1\) · schema 22\.2 % \(2\) · semantics 11\.1 % \(1\) · evidence 11\.1 % \(1\) \| - \|/m,
    );
    assert.match(
      report.text,
      /^\| orders\.get \| semantics \| invariant:total-equals-lines@2 \| 6 \| 16\.7 % \(1\) \| 0\.0 % \(0\) \| 0\.0 % \(0\) \| 0\.0 % \(0\) \|$/m,
    );
    assert.equal((await reportMetrics(store, { since: new Date(T1).toISOString() })).metrics.attempts, 6);
  });

  it('turns a malformed --since into a usage error', async () => {
    await assert.rejects(
      reportMetrics(new InMemoryToolStore(), { since: 'last week' }),
      (error: unknown) => error instanceof CliError && error.exitCode === EXIT_CODES.usage,
    );
  });
});
