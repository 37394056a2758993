// Reconciliation at scale: concurrent writes whose provider commits and then never answers. Each write times out,
// its outcome is unknown, and a reconciliation child settles it by idempotency key. Run from the repo root:
//   npm run bench:reconcile
// Knobs: BENCH_RECONCILE_WRITES (default 200), BENCH_RECONCILE_TIMEOUT_MS (tool timeout, default 1000).
import { performance } from 'node:perf_hooks';
import { PgToolStore } from '../src/store/pg/pg-tool-store.js';
import type { ToolCallResult } from '../workflows/index.js';
import { chargeKey, TOOLS } from '../testkit/payment-tools.js';
import { BENCH_PRINCIPAL, startBenchRuntime } from './support/bench-runtime.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import {
  RECONCILE_CHILD_LABELS,
  RECONCILE_SEGMENT_LABELS,
  reconcileChildWorkOf,
  reconcileSegmentsOf,
  type ReconcileChildWork,
  type ReconcileSegments,
} from './support/history-segments.js';
import { envInt, machineLine, median, ms, printTable, quantile, reportSummary } from './support/stats.js';

const WRITES = envInt('BENCH_RECONCILE_WRITES', 200);
const TIMEOUT_MS = envInt('BENCH_RECONCILE_TIMEOUT_MS', 1000);
/** Ask again 200 ms after an inconclusive answer, at most every second; never escalate during the run. */
const RECONCILE = { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 };

console.log('temporal-tool-contract reconciliation benchmark: commit-then-timeout writes settled by key');
console.log(machineLine());
const rt = await startBenchRuntime({ poolMax: 40 });
const taskQueue = `ttc-bench-reconcile-${process.pid}`;

try {
  // A hanging write may keep its activity slot after the server timed it out (the handler does not heartbeat), so
  // the worker gets a slot per write plus room for the reconciliation activities. Everything else is default.
  const worker = await rt.startWorker(taskQueue, new PgToolStore(rt.db.pool, { schema: rt.db.schema }), {
    maxConcurrentActivityTaskExecutions: WRITES + 200,
  });
  console.log(
    `database: ${rt.db.description}; ${WRITES} writes of '${TOOLS.charge}', tool timeout ${TIMEOUT_MS} ms, reconcile every ${RECONCILE.initialIntervalMs}–${RECONCILE.maximumIntervalMs} ms`,
  );

  const run = Date.now().toString(36);
  const paymentIds = Array.from({ length: WRITES }, (_, i) => `pay_bench_${run}_${i}`);
  for (const id of paymentIds) rt.payments.inject(chargeKey(BENCH_PRINCIPAL.tenant, id), 'commit_then_hang');

  const latencies: number[] = [];
  const start = performance.now();
  const results = await Promise.all(
    paymentIds.map(async (paymentId) => {
      const t0 = performance.now();
      const result = await rt.temporal.client.workflow.execute<(...a: unknown[]) => Promise<ToolCallResult>>(
        'pluginCall',
        {
          taskQueue,
          workflowId: `reconcile-bench-${paymentId}`,
          args: [
            TOOLS.charge,
            { payment_id: paymentId, customer: 'cus_bench', amount_cents: 500 },
            { principal: BENCH_PRINCIPAL, timeoutMs: TIMEOUT_MS, reconcile: RECONCILE },
          ],
        },
      );
      latencies.push(performance.now() - t0);
      return result;
    }),
  );
  const allSettledMs = performance.now() - start;

  const keys = paymentIds.map((id) => chargeKey(BENCH_PRINCIPAL.tenant, id));
  const sideEffects = keys.reduce((sum, key) => sum + rt.payments.commits(key), 0);
  const dispatches = keys.reduce((sum, key) => sum + rt.payments.dispatches(key), 0);
  const exactlyOnce = keys.filter((key) => rt.payments.commits(key) === 1).length;
  const reconciled = results.filter(
    (r) => r.modelResult.status === 'succeeded' && r.modelResult.execution.delivery === 'receipt_reconciled',
  ).length;

  printTable(
    `3. Reconciliation at scale: ${WRITES} concurrent commit-then-timeout writes (tool timeout ${TIMEOUT_MS} ms)`,
    [
      'writes',
      'all settled after',
      'settled/s',
      'p50 per write',
      'p95 per write',
      'succeeded via receipt_reconciled',
      'side effects (provider commits)',
      'keys with exactly one',
      'dispatches',
    ],
    [
      [
        String(WRITES),
        `${(allSettledMs / 1000).toFixed(1)} s`,
        (WRITES / (allSettledMs / 1000)).toFixed(1),
        `${ms(quantile(latencies, 0.5))} ms`,
        `${ms(quantile(latencies, 0.95))} ms`,
        String(reconciled),
        String(sideEffects),
        String(exactlyOnce),
        String(dispatches),
      ],
    ],
  );
  // The segments are those of a write that timed out and was reconciled; on a loaded machine a write may instead
  // fail before it dispatched (its reconciliation then finds nothing), and the counts above show that.
  const sample = paymentIds
    .filter((_, i) => results[i]?.modelResult.execution.delivery === 'receipt_reconciled')
    .slice(0, 40);
  const sampled = await Promise.all(
    sample.map(async (id) =>
      reconcileSegmentsOf(await rt.temporal.client.workflow.getHandle(`reconcile-bench-${id}`).fetchHistory()),
    ),
  );
  printTable(
    `3b. Where the time goes: server event timestamps of ${sampled.length} of the writes (ms)`,
    ['segment', 'median', 'p95'],
    (Object.keys(RECONCILE_SEGMENT_LABELS) as (keyof ReconcileSegments)[]).map((field) => {
      const values = sampled.map((s) => s[field]);
      return [RECONCILE_SEGMENT_LABELS[field], ms(median(values)), ms(quantile(values, 0.95))];
    }),
  );
  const children = await Promise.all(
    sample.map(async (id) =>
      reconcileChildWorkOf(
        await rt.temporal.client.workflow
          .getHandle(reconcileWorkflowId(chargeKey(BENCH_PRINCIPAL.tenant, id)))
          .fetchHistory(),
      ),
    ),
  );
  printTable(
    `3c. Inside the reconciliation child: server event timestamps and event counts of the same ${children.length} writes' children`,
    ['measure', 'median', 'p95'],
    (Object.keys(RECONCILE_CHILD_LABELS) as (keyof ReconcileChildWork)[]).map((field) => {
      const values = children.map((c) => c[field]);
      // Counts and whole milliseconds print as they are.
      const shown = (value: number) => (Number.isInteger(value) ? String(value) : ms(value));
      return [RECONCILE_CHILD_LABELS[field], shown(median(values)), shown(quantile(values, 0.95))];
    }),
  );
  reportSummary([
    {
      part: '3 reconcile',
      measure: `${WRITES} commit-then-timeout writes: all settled after`,
      value: `${(allSettledMs / 1000).toFixed(1)} s (${(WRITES / (allSettledMs / 1000)).toFixed(1)}/s)`,
    },
    {
      part: '3 reconcile',
      measure: `side effects (must be ${WRITES}, one per key)`,
      value: `${sideEffects} (${exactlyOnce} keys with exactly one)`,
    },
  ]);
  const ok = sideEffects === WRITES && exactlyOnce === WRITES && reconciled === WRITES && dispatches === WRITES;
  if (!ok) {
    console.error(
      `FAILED: expected ${WRITES} side effects, one per key, each dispatched once and settled via receipt_reconciled`,
    );
    process.exitCode = 1;
  }
  // Release the hanging requests first, so the worker's shutdown does not wait on them.
  await rt.payments.stop();
  await worker.stop();
} finally {
  await rt.stop();
}
