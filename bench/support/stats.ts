// Small shared helpers of the benchmarks: percentiles, number formatting, markdown tables, env knobs and the
// summary rows `bench/run-all.ts` collects into one table.
import { appendFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** Nearest-rank quantile of `samples` (q in 0..1); NaN for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** Milliseconds with precision that suits their size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

export const ratio = (value: number): string => (Number.isFinite(value) ? value.toFixed(2) : '–');
export const perSecond = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : '–');

/** Prints a markdown table (header, separator, rows), ready to paste into docs/benchmarks.md. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  console.log(`\n${title}\n`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

/** A positive integer from the environment, else `fallback`; anything else is a clear error. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

/** One line describing the machine, printed by every benchmark so figures are never separated from it. */
export function machineLine(): string {
  const cpu = cpus();
  return `machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${process.platform}/${process.arch}, node ${process.version}`;
}

/** A headline figure of one part, for the combined table `npm run bench` prints at the end. */
export interface SummaryRow {
  readonly part: string;
  readonly measure: string;
  readonly value: string;
}

/** Appends headline rows to the file `bench/run-all.ts` gave in BENCH_SUMMARY_FILE (no-op when run alone). */
export function reportSummary(rows: readonly SummaryRow[]): void {
  const file = process.env['BENCH_SUMMARY_FILE'];
  if (file === undefined || file === '') return;
  appendFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}
