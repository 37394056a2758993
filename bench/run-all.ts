// Runs every benchmark part, each in its own process (own dev server and Postgres, so parts cannot disturb each
// other), streams their tables, then prints one combined table of the headline figures. From the repo root:
//   npm run bench                    all parts
//   npm run bench -- e2e store       some parts (contract, e2e, reconcile, store, redaction, fence)
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveTemporalCli } from '../src/testing/temporal-cli.js';
import { PROJECT_ROOT } from '../testkit/project-root.js';
import { machineLine, printTable, type SummaryRow } from './support/stats.js';

const PARTS = {
  contract: { file: 'bench/contract.bench.ts', nodeFlags: ['--expose-gc'] },
  e2e: { file: 'bench/e2e.bench.ts', nodeFlags: [] },
  reconcile: { file: 'bench/reconcile.bench.ts', nodeFlags: [] },
  store: { file: 'bench/store.bench.ts', nodeFlags: [] },
  redaction: { file: 'bench/redaction.bench.ts', nodeFlags: [] },
  fence: { file: 'bench/write-fence.bench.ts', nodeFlags: [] },
} as const;
type Part = keyof typeof PARTS;

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in PARTS));
if (unknown.length > 0) {
  console.error(`unknown benchmark part(s): ${unknown.join(', ')}; choose from ${Object.keys(PARTS).join(', ')}`);
  process.exit(2);
}
const parts = (requested.length > 0 ? requested : Object.keys(PARTS)) as Part[];

const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
const temporalVersion = cli === null ? 'not found' : execFileSync(cli.path, ['--version'], { encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'ttc-bench-'));
const summaryFile = join(dir, 'summary.jsonl');
const started = Date.now();
const failed: Part[] = [];

try {
  for (const part of parts) {
    const { file, nodeFlags } = PARTS[part];
    console.log(`\n=== ${part}: node ${[...nodeFlags, '--import', 'tsx', file].join(' ')}`);
    const partStart = Date.now();
    const result = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', file], {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      env: { ...process.env, BENCH_SUMMARY_FILE: summaryFile },
    });
    if (result.status !== 0) failed.push(part);
    console.log(
      `=== ${part}: ${result.status === 0 ? 'done' : `FAILED (exit ${result.status ?? result.signal})`} in ${((Date.now() - partStart) / 1000).toFixed(0)} s`,
    );
  }

  let rows: SummaryRow[] = [];
  try {
    rows = readFileSync(summaryFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SummaryRow);
  } catch {
    // No part reported anything (all failed early); the table below is then empty.
  }
  console.log(`\n${machineLine()}; ${temporalVersion}`);
  printTable(
    `Summary (${parts.join(', ')}; ${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
    ['part', 'measure', 'value'],
    rows.map((r) => [r.part, r.measure, r.value]),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
