// End to end: the same tool handler called through the plugin (`callTool`) and as a bare activity, on the same dev
// server, the same worker setup, in the same run. Run from the repo root:  npm run bench:e2e
// Knobs: BENCH_CALLS (single-call workflows per path and concurrency, default 200), BENCH_ROUNDS (default 4),
// BENCH_CALLS_PER_WORKFLOW (default 10), BENCH_SWEEP_CALLS (default 64), BENCH_PG_FSYNC (on|off, default on), DATABASE_URL.
// Last, a concurrency sweep (1 → 64) of bare and plugin, drawn as SVG charts (docs/benchmarks/).
import { performance } from 'node:perf_hooks';
import { InMemoryToolStore } from '../src/store/in-memory/in-memory-tool-store.js';
import { PgToolStore } from '../src/store/pg/pg-tool-store.js';
import { TOOLS } from '../testkit/payment-tools.js';
import { BENCH_PRINCIPAL, startBenchRuntime } from './support/bench-runtime.js';
import { SEGMENT_LABELS, segmentsOf, type WorkflowSegments } from './support/history-segments.js';
import {
  envInt,
  machineLine,
  median,
  ms,
  perSecond,
  printTable,
  quantile,
  ratio,
  reportSummary,
} from './support/stats.js';
import { linearTicks, writeChart } from './support/svg-chart.js';
import { cpuSpent, processTreeCpu, type CpuByConsumer } from './support/process-cpu.js';
import { activityTimings, timedStore, Timings } from './support/timings.js';

const CALLS = envInt('BENCH_CALLS', 200);
const ROUNDS = envInt('BENCH_ROUNDS', 4);
const CALLS_PER_WORKFLOW = envInt('BENCH_CALLS_PER_WORKFLOW', 10);
const CONCURRENCIES = [1, 32] as const;
/** Issue 14's goals for the ratios the summary prints, by concurrency (throughput: of either workflow shape). */
const GOALS: Record<'p50' | 'throughput' | 'perCall', Partial<Record<number, string>>> = {
  p50: { 1: '≤ 1.05', 32: '≤ 1.15' },
  throughput: { 1: '≥ 0.95', 32: '≥ 0.90' },
  perCall: { 1: '≤ 1.05', 32: '≤ 1.20' },
};
/** Concurrencies of the sweep, and the fewest single-call workflows per path at each (twice the concurrency at least). */
const SWEEP_CONCURRENCIES = [1, 2, 4, 8, 16, 32, 64] as const;
const SWEEP_CALLS = envInt('BENCH_SWEEP_CALLS', 64);
/** Single-call workflows per path whose histories are read for the breakdown. */
const BREAKDOWN_SAMPLES = 30;

const tool = TOOLS.customer;
const args = { customer_id: 'cus_bench' };

/** A way of making the call: which workflow, on which task queue. */
interface Path {
  readonly key: 'bare' | 'plugin' | 'pluginTyped' | 'pluginMemory';
  readonly label: string;
  readonly taskQueue: string;
  readonly workflowType: 'bareCalls' | 'pluginCalls' | 'pluginTypedCalls';
  /** Call options beyond the principal (plugin paths). */
  readonly callOptions?: Readonly<Record<string, unknown>>;
  /** How the summary names the path's ratios to bare's (the paths it reports). */
  readonly summaryName?: string;
}

const QUEUE_BARE = `ttc-bench-e2e-bare-${process.pid}`;
const QUEUE_PG = `ttc-bench-e2e-${process.pid}`;
const QUEUE_MEMORY = `ttc-bench-e2e-mem-${process.pid}`;
const PATHS: readonly Path[] = [
  { key: 'bare', label: 'bare activity', taskQueue: QUEUE_BARE, workflowType: 'bareCalls' },
  {
    key: 'plugin',
    label: 'plugin (Postgres store)',
    taskQueue: QUEUE_PG,
    workflowType: 'pluginCalls',
    summaryName: 'plugin/bare',
  },
  // The same calls made with the tool's declaration, as application workflows make them (the name path asks the
  // worker to describe the tool once per run).
  {
    key: 'pluginTyped',
    label: 'plugin, typed call (Postgres store)',
    taskQueue: QUEUE_PG,
    workflowType: 'pluginTypedCalls',
    summaryName: 'plugin (typed)/bare',
  },
  { key: 'pluginMemory', label: 'plugin (in-memory store)', taskQueue: QUEUE_MEMORY, workflowType: 'pluginCalls' },
];

interface RunResult {
  /** Client-side start → result of each workflow (ms). */
  readonly latencies: number[];
  readonly workflowIds: string[];
  readonly wallMs: number;
  /** CPU the whole run cost each process (null without /proc). */
  readonly cpu: CpuByConsumer | null;
}

console.log('temporal-tool-contract end-to-end benchmark: plugin vs bare activity');
console.log(machineLine());
const setupStart = performance.now();
const rt = await startBenchRuntime({ poolMax: 40 });
const storeTimings = new Timings();
const bareWorkerTimings = new Timings();
const pgWorkerTimings = new Timings();
const memoryWorkerTimings = new Timings();
let sequence = 0;

try {
  const workers = [
    // The bare path's worker has no plugin and bundles no package code: what the same handler costs without the package.
    await rt.startBareWorker(QUEUE_BARE, { interceptors: { activity: [activityTimings(bareWorkerTimings)] } }),
    await rt.startWorker(QUEUE_PG, timedStore(new PgToolStore(rt.db.pool, { schema: rt.db.schema }), storeTimings), {
      interceptors: { activity: [activityTimings(pgWorkerTimings)] },
    }),
    await rt.startWorker(QUEUE_MEMORY, new InMemoryToolStore(), {
      interceptors: { activity: [activityTimings(memoryWorkerTimings)] },
    }),
  ];
  console.log(
    `setup ${((performance.now() - setupStart) / 1000).toFixed(1)} s; database: ${rt.db.description}; dev server ${rt.temporal.server.address}`,
  );
  console.log(
    `tool '${tool}' (a read whose handler returns at once), ${CALLS} single-call workflows per path and concurrency in ${ROUNDS} rounds, ` +
      `and workflows of ${CALLS_PER_WORKFLOW} calls; paths alternate within each round`,
  );

  /** Runs `workflows` workflows of `callsEach` calls, `concurrency` at a time; checks every call really succeeded. */
  const run = async (path: Path, workflows: number, callsEach: number, concurrency: number): Promise<RunResult> => {
    const argsList = Array.from({ length: callsEach }, () => args);
    const workflowArgs =
      path.workflowType === 'bareCalls'
        ? [tool, argsList]
        : [tool, argsList, { principal: BENCH_PRINCIPAL, ...path.callOptions }];
    const latencies: number[] = [];
    const workflowIds: string[] = [];
    let next = 0;
    const cpuBefore = processTreeCpu();
    const start = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(concurrency, workflows) }, async () => {
        while (next < workflows) {
          next += 1;
          const workflowId = `e2e-${path.key}-${++sequence}`;
          const t0 = performance.now();
          const done = await rt.temporal.client.workflow.execute<(...a: unknown[]) => Promise<number>>(
            path.workflowType,
            { taskQueue: path.taskQueue, workflowId, args: workflowArgs },
          );
          latencies.push(performance.now() - t0);
          workflowIds.push(workflowId);
          if (done !== callsEach)
            throw new Error(`${path.label}: ${done} of ${callsEach} calls succeeded in ${workflowId}`);
        }
      }),
    );
    const wallMs = performance.now() - start;
    const cpuAfter = processTreeCpu();
    return {
      latencies,
      workflowIds,
      wallMs,
      cpu: cpuBefore === null || cpuAfter === null ? null : cpuSpent(cpuBefore, cpuAfter),
    };
  };

  /** Rounds of every path, the order rotated each round so drift (other load, caches, table growth) favours none. */
  const alternate = async (
    workflowsPerRound: number,
    callsEach: number,
    concurrency: number,
    rounds: number,
    paths: readonly Path[] = PATHS,
  ) => {
    const results = new Map<
      Path['key'],
      { latencies: number[]; rates: number[]; workflowIds: string[]; cpuPerCall: CpuByConsumer[] }
    >(paths.map((p) => [p.key, { latencies: [], rates: [], workflowIds: [], cpuPerCall: [] }]));
    for (let round = 0; round < rounds; round++) {
      const order = [...paths.slice(round % paths.length), ...paths.slice(0, round % paths.length)];
      for (const path of order) {
        const result = await run(path, workflowsPerRound, callsEach, concurrency);
        const into = results.get(path.key)!;
        into.latencies.push(...result.latencies);
        into.workflowIds.push(...result.workflowIds);
        into.rates.push((workflowsPerRound * callsEach) / (result.wallMs / 1000));
        if (result.cpu !== null) into.cpuPerCall.push(perCall(result.cpu, workflowsPerRound * callsEach));
      }
      console.log(
        `  … concurrency ${concurrency}, ${callsEach === 1 ? 'single-call workflows' : `${callsEach}-call workflows`}: round ${round + 1}/${rounds} done`,
      );
    }
    return results;
  };

  // Warm-up: connections, prepared statements, workflow caches, JIT, on every path.
  for (const path of PATHS) {
    await run(path, 40, 1, 8);
    await run(path, 4, CALLS_PER_WORKFLOW, 4);
  }

  const singleRows: string[][] = [];
  const loopRows: string[][] = [];
  const summary: { part: string; measure: string; value: string }[] = [];
  let breakdownIds = new Map<Path['key'], string[]>();
  let workerRows: string[][] = [];
  const cpuRows: string[][] = [];

  for (const concurrency of CONCURRENCIES) {
    for (const timings of [storeTimings, bareWorkerTimings, pgWorkerTimings, memoryWorkerTimings]) timings.reset();
    const perRound = Math.max(1, Math.ceil(CALLS / ROUNDS));
    const single = await alternate(perRound, 1, concurrency, ROUNDS);
    if (concurrency === 1)
      breakdownIds = new Map([...single].map(([key, r]) => [key, r.workflowIds.slice(-BREAKDOWN_SAMPLES)]));
    const bare = single.get('bare')!;
    for (const path of PATHS) {
      const r = single.get(path.key)!;
      const p50 = quantile(r.latencies, 0.5);
      const p95 = quantile(r.latencies, 0.95);
      const rate = median(r.rates);
      const vs = (value: number, base: number) => (path.key === 'bare' ? '1.00' : ratio(value / base));
      singleRows.push([
        String(concurrency),
        path.label,
        String(r.latencies.length),
        ms(p50),
        ms(p95),
        perSecond(rate),
        vs(p50, quantile(bare.latencies, 0.5)),
        vs(p95, quantile(bare.latencies, 0.95)),
        vs(rate, median(bare.rates)),
      ]);
      if (path.summaryName !== undefined) {
        summary.push({
          part: '2 e2e',
          measure: `${path.summaryName} p50, concurrency ${concurrency} (goal ${GOALS.p50[concurrency] ?? '–'})`,
          value: ratio(p50 / quantile(bare.latencies, 0.5)),
        });
        summary.push({
          part: '2 e2e',
          measure: `${path.summaryName} throughput, concurrency ${concurrency} (goal ${GOALS.throughput[concurrency] ?? '–'})`,
          value: ratio(rate / median(bare.rates)),
        });
      }
    }
    if (concurrency === 1) workerRows = workerTimingRows();
    cpuRows.push(...cpuTableRows(concurrency, single));
    const bareCpu = cpuTotal(bare.cpuPerCall);
    for (const path of PATHS.filter((p) => p.summaryName !== undefined)) {
      const pathCpu = cpuTotal(single.get(path.key)!.cpuPerCall);
      if (pathCpu !== null && bareCpu !== null)
        summary.push({
          part: '2 e2e',
          measure: `${path.summaryName} CPU per single-call workflow, all processes, concurrency ${concurrency}`,
          value: ratio(pathCpu / bareCpu),
        });
    }

    const loopWorkflows = Math.max(concurrency, Math.ceil(perRound / CALLS_PER_WORKFLOW));
    // Half the rounds: at concurrency 32 each round is already 32 workflows of several calls.
    const loop = await alternate(loopWorkflows, CALLS_PER_WORKFLOW, concurrency, Math.max(1, Math.floor(ROUNDS / 2)));
    const loopBare = loop.get('bare')!;
    for (const path of PATHS) {
      const r = loop.get(path.key)!;
      const perCall = median(r.latencies) / CALLS_PER_WORKFLOW;
      const rate = median(r.rates);
      const vs = (value: number, base: number) => (path.key === 'bare' ? '1.00' : ratio(value / base));
      loopRows.push([
        String(concurrency),
        path.label,
        `${r.latencies.length} × ${CALLS_PER_WORKFLOW}`,
        ms(perCall),
        perSecond(rate),
        vs(perCall, median(loopBare.latencies) / CALLS_PER_WORKFLOW),
        vs(rate, median(loopBare.rates)),
      ]);
      if (path.summaryName !== undefined) {
        summary.push({
          part: '2 e2e',
          measure: `${path.summaryName} per call inside one workflow, concurrency ${concurrency} (goal ${GOALS.perCall[concurrency] ?? '–'})`,
          value: ratio(perCall / (median(loopBare.latencies) / CALLS_PER_WORKFLOW)),
        });
        summary.push({
          part: '2 e2e',
          measure: `${path.summaryName} throughput inside one workflow, concurrency ${concurrency} (goal ${GOALS.throughput[concurrency] ?? '–'})`,
          value: ratio(rate / median(loopBare.rates)),
        });
      }
    }
  }

  const sweep = await concurrencySweep(alternate);

  printTable(
    `2a. One workflow per call (client start → result), ${CALLS} calls per path and concurrency; ratios are path / bare`,
    ['concurrency', 'path', 'calls', 'p50 ms', 'p95 ms', 'calls/s', 'p50 ratio', 'p95 ratio', 'throughput ratio'],
    singleRows,
  );
  printTable(
    `2b. ${CALLS_PER_WORKFLOW} calls in one workflow (sequential), median workflow time / ${CALLS_PER_WORKFLOW}; ratios are path / bare`,
    ['concurrency', 'path', 'workflows × calls', 'ms per call', 'calls/s', 'per-call ratio', 'throughput ratio'],
    loopRows,
  );
  await printBreakdown(breakdownIds);
  printTable(
    '2d. Worker-side times at concurrency 1, single-call workflows (ms; activities timed by an outermost activity interceptor)',
    ['what', 'n', 'median', 'p95'],
    workerRows,
  );
  printTable(
    '2f. CPU per call, single-call workflows: every process of the run (median of the rounds, ms of CPU per call; the machine has 2 cores)',
    [
      'concurrency',
      'path',
      'dev server',
      'worker + client (node)',
      'Postgres',
      'total',
      'total ratio',
      'throughput bound when CPU-bound',
    ],
    cpuRows,
  );
  printSweep(sweep);
  reportSummary(summary);
  for (const worker of workers) await worker.stop();
} finally {
  await rt.stop();
}

function perCall(cpu: CpuByConsumer, calls: number): CpuByConsumer {
  return {
    node: cpu.node / calls,
    temporal: cpu.temporal / calls,
    postgres: cpu.postgres / calls,
    other: cpu.other / calls,
  };
}

/** The median over rounds of all processes' CPU per call, or null without /proc. */
function cpuTotal(rounds: readonly CpuByConsumer[]): number | null {
  return rounds.length === 0 ? null : median(rounds.map((c) => c.node + c.temporal + c.postgres + c.other));
}

/**
 * CPU per call by process, each path against bare. When the cores are the bottleneck, throughput cannot exceed
 * bare's times bare's CPU per call over the path's: that bound is the floor a ratio of wall-clock figures meets.
 */
function cpuTableRows(concurrency: number, results: Map<Path['key'], { cpuPerCall: CpuByConsumer[] }>): string[][] {
  const bare = cpuTotal(results.get('bare')?.cpuPerCall ?? []);
  if (bare === null) return [];
  return PATHS.map((path) => {
    const rounds = results.get(path.key)!.cpuPerCall;
    const total = cpuTotal(rounds)!;
    const part = (consumer: keyof CpuByConsumer) => ms(median(rounds.map((c) => c[consumer])));
    return [
      String(concurrency),
      path.label,
      part('temporal'),
      part('node'),
      part('postgres'),
      ms(total),
      ratio(total / bare),
      ratio(bare / total),
    ];
  });
}

/** What each activity took inside the worker, and the store calls the plugin waited for. */
function workerTimingRows(): string[][] {
  const row = (label: string, samples: readonly number[]) => [
    label,
    String(samples.length),
    ms(median(samples)),
    ms(quantile(samples, 0.95)),
  ];
  return [
    row('bare activity (handler only)', bareWorkerTimings.get(`activity.bare:${tool}`)),
    row(
      'plugin: describe tools (local activity, name path, once per run), Postgres worker',
      pgWorkerTimings.get('local.ttc.describeTools'),
    ),
    row('plugin: tool activity, whole (Postgres store; name and typed paths)', pgWorkerTimings.get(`activity.${tool}`)),
    row('  of which store.claimIdempotencyKey', storeTimings.get('store.claimIdempotencyKey')),
    row('  of which store.recordExecution', storeTimings.get('store.recordExecution')),
    row(
      'plugin: tool activity, whole (in-memory store: funnel + handler)',
      memoryWorkerTimings.get(`activity.${tool}`),
    ),
  ];
}

/** Medians of the server-side segments of the last single-call workflows at concurrency 1, per path. */
async function printBreakdown(ids: Map<Path['key'], string[]>): Promise<void> {
  const segments = new Map<Path['key'], WorkflowSegments[]>();
  for (const [key, workflowIds] of ids) {
    segments.set(
      key,
      await Promise.all(
        workflowIds.map(async (id) => segmentsOf(await rt.temporal.client.workflow.getHandle(id).fetchHistory())),
      ),
    );
  }
  const fields = Object.keys(SEGMENT_LABELS) as (keyof WorkflowSegments)[];
  const rows = fields.map((field) => [
    SEGMENT_LABELS[field],
    ...PATHS.map((p) => {
      const value = median((segments.get(p.key) ?? []).map((s) => s[field]));
      return field === 'events' ? String(value) : ms(value);
    }),
  ]);
  printTable(
    `2c. Where the time goes: server event timestamps of the last ${Math.min(...[...segments.values()].map((s) => s.length))} single-call workflows per path at concurrency 1 (medians, ms)`,
    ['segment', ...PATHS.map((p) => p.label)],
    rows,
  );
}

/** What the sweep measured for one path at one concurrency. */
interface SweepPoint {
  readonly concurrency: number;
  readonly path: Path;
  readonly p50: number;
  readonly p95: number;
  readonly rate: number;
}

type Alternate = (
  workflowsPerRound: number,
  callsEach: number,
  concurrency: number,
  rounds: number,
  paths: readonly Path[],
) => Promise<Map<Path['key'], { latencies: number[]; rates: number[] }>>;

/** Single-call workflows of bare and plugin (Postgres) at each concurrency of the sweep, alternating in two rounds. */
async function concurrencySweep(alternate: Alternate): Promise<SweepPoint[]> {
  const paths = PATHS.filter((p) => p.key === 'bare' || p.key === 'plugin');
  const points: SweepPoint[] = [];
  for (const concurrency of SWEEP_CONCURRENCIES) {
    const perRound = Math.ceil(Math.max(SWEEP_CALLS, 2 * concurrency) / 2);
    const results = await alternate(perRound, 1, concurrency, 2, paths);
    for (const path of paths) {
      const r = results.get(path.key)!;
      points.push({
        concurrency,
        path,
        p50: quantile(r.latencies, 0.5),
        p95: quantile(r.latencies, 0.95),
        rate: median(r.rates),
      });
    }
  }
  return points;
}

/** The sweep as a table and two charts (latency, throughput). */
function printSweep(points: readonly SweepPoint[]): void {
  const bareAt = (concurrency: number) => points.find((p) => p.concurrency === concurrency && p.path.key === 'bare')!;
  printTable(
    `2e. Concurrency sweep: single-call workflows, at least ${SWEEP_CALLS} per path and concurrency in 2 alternating rounds; ratios are plugin / bare`,
    ['concurrency', 'path', 'p50 ms', 'p95 ms', 'calls/s', 'p50 ratio', 'throughput ratio'],
    points.map((p) => {
      const bare = bareAt(p.concurrency);
      const vs = (value: number, base: number) => (p.path.key === 'bare' ? '1.00' : ratio(value / base));
      return [
        String(p.concurrency),
        p.path.label,
        ms(p.p50),
        ms(p.p95),
        perSecond(p.rate),
        vs(p.p50, bare.p50),
        vs(p.rate, bare.rate),
      ];
    }),
  );
  const concurrencyAxis = {
    label: 'workflows in flight (log scale)',
    log: true,
    ticks: [...SWEEP_CONCURRENCIES],
    format: (v: number) => String(v),
  };
  const byPath = (value: (p: SweepPoint) => number, quantileName?: string) =>
    PATHS.filter((path) => points.some((p) => p.path.key === path.key)).map((path, index) => ({
      colour: index,
      dashed: quantileName === 'p95',
      // Short names: the legend sits beside the plot.
      name: `${path.key === 'bare' ? 'bare' : 'plugin'}${quantileName === undefined ? '' : ` ${quantileName}`}`,
      points: points.filter((p) => p.path.key === path.key).map((p) => [p.concurrency, value(p)] as const),
    }));
  writeChart('concurrency-latency', {
    title: 'Single-call workflow latency by concurrency',
    x: concurrencyAxis,
    y: {
      label: 'ms (client start → result)',
      ticks: linearTicks(Math.max(...points.map((p) => p.p95))),
      format: (v) => String(v),
    },
    series: [...byPath((p) => p.p50, 'p50'), ...byPath((p) => p.p95, 'p95')],
  });
  writeChart('concurrency-throughput', {
    title: 'Throughput by concurrency',
    x: concurrencyAxis,
    y: {
      label: 'calls per second',
      ticks: linearTicks(Math.max(...points.map((p) => p.rate))),
      format: (v) => String(v),
    },
    series: byPath((p) => p.rate),
  });
}
