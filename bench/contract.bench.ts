// Benchmark of the contract funnel (not a timed test). Run from the repo root:
//   node --expose-gc --import tsx bench/contract.bench.ts
// Cases: executeTool on a ~2 KB read result, on a ~1 MB, 10,000-item result truncated to a 16 KB byte budget, and on
// a 200,000-key object (~3.8 MB) that the raw size gate sends straight to the over-budget result.
// Each is compared with a baseline of `output.parse` + `JSON.stringify` of the same data in the same process.
// Then a sweep of the payload size (1 KB → 10 MB): time and memory per call, drawn as charts (docs/benchmarks/).
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { type AnyToolImplementation } from '../src/index.js';
import { executeTool } from '../src/contract/execute-tool.js';
import {
  benchContext as ctx,
  eventList,
  eventsTool,
  largeData,
  largeList,
  largeTool,
  smallData,
  smallTool,
  wideData,
  wideTool,
} from './support/contract-cases.js';
import { linuxPeakRss } from './support/peak-rss.js';
import { printTable, reportSummary } from './support/stats.js';
import { decades, linearTicks, writeChart } from './support/svg-chart.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('run with --expose-gc: node --expose-gc --import tsx bench/contract.bench.ts');
  process.exit(2);
}

// ---- measurement -------------------------------------------------------------------------------------------

interface Stats {
  readonly median: number;
  readonly p95: number;
  readonly mean: number;
  readonly n: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return {
    median: at(0.5),
    p95: at(0.95),
    mean: samples.reduce((s, x) => s + x, 0) / samples.length,
    n: samples.length,
  };
}

async function time(fn: () => unknown, warmup: number, iterations: number): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn();
  gc!();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return stats(samples);
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

async function runCase(
  name: string,
  tool: AnyToolImplementation,
  args: unknown,
  data: unknown,
  warmup: number,
  iterations: number,
): Promise<void> {
  const outputSchema = tool.output as z.ZodType;
  const check = await executeTool(tool, args, ctx);
  const { modelResult } = check;
  if (modelResult.error !== null) throw new Error(`${name}: unexpected failure ${modelResult.error.code}`);
  console.log(`\n${name}`);
  console.log(
    `  data ${bytesOf(data)} bytes → model result ${bytesOf(modelResult)} bytes, status ${modelResult.status}, ` +
      `returned_items ${modelResult.completeness.returned_items}, state ${modelResult.completeness.state}`,
  );

  const baseline = await time(() => JSON.stringify(outputSchema.parse(data)), warmup, iterations);
  const contract = await time(() => executeTool(tool, args, ctx), warmup, iterations);
  console.log(
    `  executeTool            median ${ms(contract.median)} ms   p95 ${ms(contract.p95)} ms   (n=${contract.n}, warm-up ${warmup})`,
  );
  console.log(`  baseline parse+stringify median ${ms(baseline.median)} ms   p95 ${ms(baseline.p95)} ms`);
  console.log(
    `  ratio executeTool/baseline: median ×${(contract.median / baseline.median).toFixed(1)}   p95 ×${(contract.p95 / baseline.p95).toFixed(1)}`,
  );
  tableRows.push([
    name,
    String(bytesOf(data)),
    String(bytesOf(modelResult)),
    ms(contract.median),
    ms(contract.p95),
    ms(baseline.median),
    `×${(contract.median / baseline.median).toFixed(1)}`,
  ]);
  reportSummary([
    {
      part: '1 contract',
      measure: `${name}: executeTool median (× parse+stringify)`,
      value: `${ms(contract.median)} ms (×${(contract.median / baseline.median).toFixed(1)})`,
    },
  ]);
}

const tableRows: string[][] = [];
const memoryRows: string[][] = [];

const peakRss = linuxPeakRss();

/**
 * Peak memory of one call: the growth of the RSS peak (VmHWM, reset just before the call; see {@link linuxPeakRss})
 * and the heap growth right after the call before any collection (everything it allocated that a GC had not yet
 * reclaimed).
 */
async function memory(name: string, fn: () => Promise<unknown>): Promise<{ row: string[]; heapBytes: number }> {
  gc!();
  const before = process.memoryUsage();
  const rssBefore = peakRss?.reset() ?? 0;
  await fn();
  // The peak is sampled by the kernel, the RSS read a moment later: a call that grew nothing can read a hair below zero.
  const peakGrowth = peakRss === null ? 'n/a (no /proc)' : mb(Math.max(0, peakRss.peak() - rssBefore));
  const heapBytes = process.memoryUsage().heapUsed - before.heapUsed;
  gc!();
  const retained = process.memoryUsage().heapUsed - before.heapUsed;
  return { row: [name, mb(heapBytes), mb(retained), peakGrowth], heapBytes };
}

const cpu = cpus();
console.log('temporal-tool-contract contract benchmark');
console.log(
  `machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown cpu'}, ${mb(totalmem())} RAM, ${process.platform}/${process.arch}, node ${process.version}`,
);

// Memory first, before the timed runs have grown the heap; each call is warmed up once so compiling its code does not
// count as its memory.
console.log('\npeak memory, ~1 MB / 10,000-item result truncated to 16 KB (one call each, after one warm-up call)');
const baselineCall = async () => JSON.stringify(eventList.parse(largeData));
const contractCall = () => executeTool(largeTool, { since: '2026-11-01' }, ctx);
await baselineCall();
await contractCall();
memoryRows.push((await memory('baseline parse+stringify', baselineCall)).row);
memoryRows.push((await memory('executeTool', contractCall)).row);

await runCase(
  '~2 KB read result (orders.get, default budget)',
  smallTool,
  { order_id: 'ord_1001' },
  smallData,
  200,
  2000,
);
await runCase(
  '~1 MB, 10,000-item result truncated to 16 KB (payments.events)',
  largeTool,
  { since: '2026-11-01' },
  largeData,
  3,
  20,
);
await runCase('200,000-key object over the raw size gate (attributes.get)', wideTool, { id: 'rec_1' }, wideData, 1, 5);

printTable(
  '1. Contract funnel: executeTool vs output.parse + JSON.stringify of the same data (ms per call)',
  [
    'case',
    'data bytes',
    'model result bytes',
    'executeTool median',
    'executeTool p95',
    'parse+stringify median',
    'ratio (median)',
  ],
  tableRows,
);
printTable(
  '1b. Peak memory of one call, ~1 MB / 10,000-item result',
  ['call', 'heap growth at end of call', 'retained after GC', 'peak RSS growth'],
  memoryRows,
);
reportSummary(
  memoryRows.map(([name, heap, , rss]) => ({
    part: '1 contract',
    measure: `peak memory, 1 MB result, ${name ?? ''}`,
    value: `heap +${heap ?? ''}, peak RSS +${rss ?? ''}`,
  })),
);

// ---- payload sweep -----------------------------------------------------------------------------------------

/** Payload sizes of the sweep (bytes of the handler's data, approximately). */
const SWEEP_BYTES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000];
/** Bytes per event of {@link largeList} (its 10,000 events are 1,120,012 bytes). */
const EVENT_BYTES = 112;
/**
 * A 256 KB budget, so every size up to 10 MB is validated and fitted (with 16 KB, results over ~1.6 MB would go to
 * the raw size gate, which skips the per-value passes): the sweep shows how the whole funnel grows.
 */
const sweepTool = eventsTool({ maxBytes: 262_144, maxItems: 1_000_000 }, () => sweepData);
let sweepData = largeList(1);

const sweepRows: string[][] = [];
const timePoints: { bytes: number; contract: number; baseline: number }[] = [];
const memoryPoints: { bytes: number; heap: number; baselineHeap: number }[] = [];
for (const target of SWEEP_BYTES) {
  sweepData = largeList(Math.max(1, Math.round(target / EVENT_BYTES)));
  const bytes = bytesOf(sweepData);
  const args = { since: '2026-11-01' };
  const baselineMemory = await memory(`sweep ${bytes} B, baseline`, async () =>
    JSON.stringify(eventList.parse(sweepData)),
  );
  const contractMemory = await memory(`sweep ${bytes} B, executeTool`, () => executeTool(sweepTool, args, ctx));
  const iterations = Math.min(200, Math.max(3, Math.round(3e6 / bytes)));
  const baseline = await time(() => JSON.stringify(eventList.parse(sweepData)), Math.min(20, iterations), iterations);
  const contract = await time(() => executeTool(sweepTool, args, ctx), Math.min(20, iterations), iterations);
  timePoints.push({ bytes, contract: contract.median, baseline: baseline.median });
  memoryPoints.push({ bytes, heap: contractMemory.heapBytes, baselineHeap: baselineMemory.heapBytes });
  sweepRows.push([
    String(bytes),
    String(sweepData.events.length),
    ms(contract.median),
    ms(contract.p95),
    ms(baseline.median),
    `×${(contract.median / baseline.median).toFixed(1)}`,
    mb(contractMemory.heapBytes),
    mb(baselineMemory.heapBytes),
  ]);
  console.log(
    `  sweep ${bytes} bytes: executeTool median ${ms(contract.median)} ms, baseline ${ms(baseline.median)} ms (n=${iterations})`,
  );
}
printTable(
  "1c. Payload sweep (256 KB budget): ms per call and memory of one call, by size of the handler's data",
  [
    'data bytes',
    'items',
    'executeTool median',
    'executeTool p95',
    'parse+stringify median',
    'ratio (median)',
    'executeTool heap growth',
    'baseline heap growth',
  ],
  sweepRows,
);
const sizeAxis = {
  label: 'handler data (bytes, log scale)',
  log: true,
  ticks: decades(1_000, 10_000_000),
  format: (v: number) => (v >= 1e6 ? `${v / 1e6} MB` : `${v / 1e3} KB`),
};
const maxMs = Math.max(...timePoints.map((p) => p.contract));
writeChart('payload-time', {
  title: 'Funnel time per call by payload size',
  x: sizeAxis,
  y: {
    label: 'ms per call (median, log scale)',
    log: true,
    ticks: decades(0.01, 10 ** Math.ceil(Math.log10(maxMs))),
    format: (v) => String(v),
  },
  series: [
    { name: 'executeTool', points: timePoints.map((p) => [p.bytes, p.contract]) },
    { name: 'parse + stringify', points: timePoints.map((p) => [p.bytes, p.baseline]) },
  ],
});
const toMb = (b: number) => b / 1024 / 1024;
writeChart('payload-memory', {
  title: 'Heap growth of one call by payload size',
  x: sizeAxis,
  y: {
    label: 'MB (heap growth at end of call)',
    ticks: linearTicks(Math.max(...memoryPoints.map((p) => toMb(p.heap)))),
    format: (v) => String(v),
  },
  series: [
    { name: 'executeTool', points: memoryPoints.map((p) => [p.bytes, toMb(p.heap)]) },
    { name: 'parse + stringify', points: memoryPoints.map((p) => [p.bytes, toMb(p.baselineHeap)]) },
  ],
});
