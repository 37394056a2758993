// What fencing a write costs (issue 32): the package passes a store fence before every write's handler runs, and a
// handler that calls `ctx.beforeDispatch()` passes a second one before its request leaves. The same charge through the
// plugin — with its own fence, without it — and as a bare activity (the baseline, measured in the same run), plus a
// read through the plugin to show reads pass no fence. Run from the repo root:  npm run bench:fence
// Knobs: BENCH_CALLS (single-call workflows per path and concurrency, default 120), BENCH_ROUNDS (default 3),
// BENCH_PG_FSYNC, DATABASE_URL.
import { performance } from 'node:perf_hooks';
import { PgToolStore } from '../src/store/pg/pg-tool-store.js';
import { TOOLS } from '../testkit/payment-tools.js';
import { BENCH_PRINCIPAL, startBenchRuntime } from './support/bench-runtime.js';
import { envInt, machineLine, median, ms, printTable, quantile, ratio, reportSummary } from './support/stats.js';
import { activityTimings, timedStore, Timings } from './support/timings.js';
import { bareActivityName } from './support/bare-names.js';

const CALLS = envInt('BENCH_CALLS', 120);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const CONCURRENCIES = [1, 8] as const;

interface Path {
  readonly key: 'bare' | 'fenced' | 'unfenced' | 'read';
  readonly label: string;
  readonly tool: string;
  readonly bare: boolean;
}

const PATHS: readonly Path[] = [
  { key: 'bare', label: 'charge, bare activity (baseline)', tool: TOOLS.charge, bare: true },
  {
    key: 'fenced',
    label: 'charge through the plugin, handler calls ctx.beforeDispatch()',
    tool: TOOLS.charge,
    bare: false,
  },
  { key: 'unfenced', label: 'charge through the plugin, handler does not', tool: TOOLS.chargeUnfenced, bare: false },
  { key: 'read', label: 'read through the plugin (customers.get)', tool: TOOLS.customer, bare: false },
];

const QUEUE_BARE = `ttc-bench-fence-bare-${process.pid}`;
const QUEUE_PG = `ttc-bench-fence-${process.pid}`;

/** What one path collected over every round of one concurrency. */
interface Collected {
  readonly latencies: number[];
  readonly activityMs: number[];
  readonly fenceMs: number[];
  fences: number;
  storeCalls: number;
  calls: number;
}

console.log(
  'temporal-tool-contract write-fence benchmark: a write through the plugin with one or two store fences, against a bare activity',
);
console.log(machineLine());
const setupStart = performance.now();
const rt = await startBenchRuntime({ poolMax: 20 });
const storeTimings = new Timings();
const workerTimings = new Timings();
let sequence = 0;

try {
  await rt.startBareWorker(QUEUE_BARE, { interceptors: { activity: [activityTimings(workerTimings)] } });
  await rt.startWorker(QUEUE_PG, timedStore(new PgToolStore(rt.db.pool, { schema: rt.db.schema }), storeTimings), {
    interceptors: { activity: [activityTimings(workerTimings)] },
  });
  console.log(
    `setup ${((performance.now() - setupStart) / 1000).toFixed(1)} s; database: ${rt.db.description}; ${CALLS} single-call workflows per path and concurrency in ${ROUNDS} rounds, paths alternating`,
  );

  /** Runs `workflows` single-call workflows of `path`, `concurrency` at a time, into `into`; every call must succeed. */
  const run = async (path: Path, workflows: number, concurrency: number, into: Collected): Promise<void> => {
    storeTimings.reset();
    workerTimings.reset();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, workflows) }, async () => {
        while (next < workflows) {
          next += 1;
          const n = ++sequence;
          // A charge needs a new payment id (its business key) per call, or the plugin replays the first.
          const args =
            path.tool === TOOLS.customer
              ? { customer_id: 'cus_bench' }
              : { payment_id: `pay_bench_${n}`, customer: 'cus_bench', amount_cents: 100 };
          const t0 = performance.now();
          const succeeded = path.bare
            ? await rt.temporal.client.workflow.execute<(...a: unknown[]) => Promise<number>>('bareCalls', {
                taskQueue: QUEUE_BARE,
                workflowId: `fence-${path.key}-${n}`,
                args: [path.tool, [args]],
              })
            : await rt.temporal.client.workflow.execute<(...a: unknown[]) => Promise<number>>('pluginCalls', {
                taskQueue: QUEUE_PG,
                workflowId: `fence-${path.key}-${n}`,
                args: [path.tool, [args], { principal: BENCH_PRINCIPAL }],
              });
          into.latencies.push(performance.now() - t0);
          if (succeeded !== 1) throw new Error(`${path.label}: the call in fence-${path.key}-${n} did not succeed`);
        }
      }),
    );
    into.activityMs.push(...workerTimings.get(`activity.${path.bare ? bareActivityName(path.tool) : path.tool}`));
    into.fenceMs.push(...storeTimings.get('store.fenceDispatch'));
    into.fences += storeTimings.get('store.fenceDispatch').length;
    into.storeCalls += ['claimIdempotencyKey', 'fenceDispatch', 'recordExecution'].reduce(
      (sum, method) => sum + storeTimings.get(`store.${method}`).length,
      0,
    );
    into.calls += workflows;
  };

  // Warm-up: connections, plans, workflow caches, JIT, on every path.
  for (const path of PATHS)
    await run(path, 20, 4, { latencies: [], activityMs: [], fenceMs: [], fences: 0, storeCalls: 0, calls: 0 });

  const rows: string[][] = [];
  const summary: { part: string; measure: string; value: string }[] = [];
  for (const concurrency of CONCURRENCIES) {
    const collected = new Map<Path['key'], Collected>(
      PATHS.map((p) => [p.key, { latencies: [], activityMs: [], fenceMs: [], fences: 0, storeCalls: 0, calls: 0 }]),
    );
    const perRound = Math.max(1, Math.ceil(CALLS / ROUNDS));
    for (let round = 0; round < ROUNDS; round++) {
      // The order rotates each round, so drift (other load, table growth) favours no path.
      for (const path of [...PATHS.slice(round % PATHS.length), ...PATHS.slice(0, round % PATHS.length)])
        await run(path, perRound, concurrency, collected.get(path.key)!);
      console.log(`  … concurrency ${concurrency}: round ${round + 1}/${ROUNDS} done`);
    }
    const bare = collected.get('bare')!;
    for (const path of PATHS) {
      const c = collected.get(path.key)!;
      const fencesPerCall = c.fences / c.calls;
      const fenceShare = (median(c.fenceMs) * fencesPerCall) / median(c.activityMs);
      rows.push([
        String(concurrency),
        path.label,
        String(c.calls),
        ms(median(c.latencies)),
        ms(quantile(c.latencies, 0.95)),
        path.bare ? '1.00' : ratio(median(c.latencies) / median(bare.latencies)),
        ms(median(c.activityMs)),
        path.bare ? '1.00' : ratio(median(c.activityMs) / median(bare.activityMs)),
        path.bare ? '–' : (c.storeCalls / c.calls).toFixed(2),
        path.bare ? '–' : fencesPerCall.toFixed(2),
        c.fenceMs.length === 0 ? '–' : ms(median(c.fenceMs)),
        c.fenceMs.length === 0 ? '–' : `${(fenceShare * 100).toFixed(0)} %`,
      ]);
      if (!path.bare) {
        const value = `${fencesPerCall.toFixed(2)} fences, ${c.fenceMs.length === 0 ? '0' : ms(median(c.fenceMs))} ms each; activity ${ratio(median(c.activityMs) / median(bare.activityMs))} × bare`;
        summary.push({ part: '6 fence', measure: `${path.label}, concurrency ${concurrency}`, value });
      }
    }
  }
  printTable(
    'Write fences: one workflow per call (client start → result) and the tool activity on the worker; ratios are path / bare',
    [
      'concurrency',
      'path',
      'calls',
      'p50 ms',
      'p95 ms',
      'p50 ratio',
      'tool activity p50 ms',
      'activity ratio',
      'store calls / call',
      'fences / call',
      'fence p50 ms',
      'fences’ share of the activity',
    ],
    rows,
  );
  reportSummary(summary);
} finally {
  await rt.stop();
}
