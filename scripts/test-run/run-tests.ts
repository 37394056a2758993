// Runs test files (default: every test/**/*.test.ts) with Node's built-in runner and then checks that the run proves
// its own count (scripts/test-run/verdicts.ts). Each file runs in its own process, which must exit on its own once
// its tests end (scripts/test-run/exit-guard.mjs names a file that does not); a file that runs past the per-file limit
// is cancelled and reported by name.
//   node --import tsx scripts/test-run/run-tests.ts [files or folders…]
// Files that need Temporal or Postgres share one dev server and one cluster the run starts first
// (scripts/test-run/shared-services.ts).
// Environment: TTC_TEST_CONCURRENCY (files at once), TTC_TEST_FILE_TIMEOUT_MS (per file and per test),
// TTC_TEST_SHARED_SERVICES=0 (every file starts its own services, as when it runs alone), TTC_TEST_VERDICTS_FILE (where
// to write the run's tally as JSON, per file: counts, duration, CPU).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { RUN_TYPESCRIPT } from '../../testkit/run-typescript.js';
import { SHARED_POSTGRES_ENV, SHARED_TEMPORAL_ENV } from '../../testkit/shared-test-services.js';
import { reapedChildrenCpuMs } from './children-cpu.mjs';
import { longFilesFirst } from './long-files.js';
import { startSharedServices, type SharedServices } from './shared-services.js';
import {
  REGISTRATIONS_DIR_ENV,
  unprovenFiles,
  VerdictLedger,
  type RegistrationLine,
  type RunVerdicts,
  type TestEvent,
} from './verdicts.js';

// Node 22.10+ says whether it strips types (a flag @types/node 20 does not know); 22.18 does by default.
const features: NodeJS.ProcessFeatures & { readonly typescript?: string | false } = process.features;
if (!features.typescript) {
  console.error(
    `# the tests run their TypeScript with Node's own type stripping, which needs Node 22.18 or later (this is ${process.version})`,
  );
  process.exit(1);
}

const concurrency = Number(process.env['TTC_TEST_CONCURRENCY'] ?? 4);
const fileTimeoutMs = Number(process.env['TTC_TEST_FILE_TIMEOUT_MS'] ?? 900_000);
const here = (name: string): string => join(PROJECT_ROOT, 'scripts', 'test-run', name);

const targets = process.argv.slice(2);
const files = longFilesFirst(
  (targets.length > 0 ? targets : ['test']).flatMap((target) => testFiles(resolve(PROJECT_ROOT, target))).sort(),
  PROJECT_ROOT,
);
if (files.length === 0) {
  console.error(`# no test files under ${targets.join(' ')}`);
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'ttc-test-run-'));
const eventsPath = join(scratch, 'events.jsonl');
const registrationsDir = join(scratch, 'registrations');
mkdirSync(registrationsDir);
// Every process of the run (files, and the CLI and worker processes they start) loads much the same sources: their
// types are stripped once, here, and testkit/typescript-hooks.mjs hands each process the stripped form.
const strippedSources = join(scratch, 'stripped-sources');
execFileSync(process.execPath, ['--no-warnings', here('stripped-sources.mjs'), strippedSources], { stdio: 'inherit' });
const args = [
  ...RUN_TYPESCRIPT,
  '--import',
  here('registrations.mjs'),
  '--import',
  here('exit-guard.mjs'),
  '--test',
  `--test-concurrency=${concurrency}`,
  `--test-timeout=${fileTimeoutMs}`,
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${here('event-recorder.mjs')}`,
  `--test-reporter-destination=${eventsPath}`,
  ...files,
];
const started = Date.now();
// The unit and conformance tiers need no services; anything else may.
const needsServices =
  process.env['TTC_TEST_SHARED_SERVICES'] !== '0' &&
  files.some((file) => !/[/\\]test[/\\](unit|conformance)[/\\]/.test(file));
let services: SharedServices | null = null;
if (needsServices) {
  services = await startSharedServices(scratch);
  console.log(
    `# shared services: Temporal at ${services.env[SHARED_TEMPORAL_ENV]}, ${services.env[SHARED_POSTGRES_ENV] === undefined ? 'DATABASE_URL' : 'a Postgres cluster'}, the workflow bundle (${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
}
let runnerCode: number;
try {
  const runner = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...services?.env,
      [REGISTRATIONS_DIR_ENV]: registrationsDir,
      TTC_STRIPPED_SOURCES: strippedSources,
      // Node 22+ keeps the compiled code of the modules a process loads here, and the next process that loads them
      // (every file, CLI and worker process of the run loads much the same) skips compiling: less CPU per process.
      NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE'] ?? join(scratch, 'compile-cache'),
    },
  });
  const forward = (signal: NodeJS.Signals) => () => runner.kill(signal);
  process.once('SIGINT', forward('SIGINT')).once('SIGTERM', forward('SIGTERM'));
  runnerCode = await new Promise<number>((done) =>
    runner.once('exit', (code, signal) => done(code ?? (signal === null ? 1 : 128))),
  );
} finally {
  await services?.stop();
}

let verdicts: RunVerdicts | null = null;
try {
  const ledger = new VerdictLedger();
  for (const name of readdirSync(registrationsDir))
    ledger.register(jsonLines<RegistrationLine>(join(registrationsDir, name)));
  for (const event of jsonLines<TestEvent>(eventsPath)) ledger.record(event);
  verdicts = ledger.summary();
} catch (error) {
  console.error(`# the runner's events could not be read (${String(error)})`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const problems = verdicts === null ? ['the run recorded no events'] : unprovenFiles(verdicts, files);
if (verdicts !== null) {
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `# verdicts: ${verdicts.registered - verdicts.suites} tests and ${verdicts.suites} suites registered, ${verdicts.reported} verdicts ` +
      `(${verdicts.passed} passed, ${verdicts.failed} failed, ${verdicts.skipped} skipped) in ${files.length} files, ${concurrency} at a time, ${seconds} s`,
  );
  const summaryPath = process.env['TTC_TEST_VERDICTS_FILE'];
  if (summaryPath !== undefined) writeFileSync(summaryPath, `${JSON.stringify(verdicts, null, 1)}\n`);
  const slowest = [...verdicts.files]
    .sort((a, b) => (b.completed?.durationMs ?? 0) - (a.completed?.durationMs ?? 0))
    .slice(0, 10);
  const costliest = [...verdicts.files].sort((a, b) => (b.cpuMs ?? 0) - (a.cpuMs ?? 0)).slice(0, 10);
  const cpuSeconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(0);
  console.log(
    `# CPU: ${cpuSeconds(reapedChildrenCpuMs())} s in all (the files ${cpuSeconds(verdicts.files.reduce((n, file) => n + (file.cpuMs ?? 0), 0))} s, the rest the runner and the shared services); most: ${costliest.map((file) => `${relative(PROJECT_ROOT, file.file)} ${cpuSeconds(file.cpuMs)} s`).join(', ')}`,
  );
  console.log(
    `# slowest files: ${slowest.map((file) => `${relative(PROJECT_ROOT, file.file)} ${((file.completed?.durationMs ?? 0) / 1000).toFixed(0)} s`).join(', ')}`,
  );
}
for (const problem of problems) console.error(`# UNPROVEN COUNT: ${problem}`);
process.exit(runnerCode !== 0 ? runnerCode : problems.length > 0 ? 1 : 0);

function jsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

function testFiles(path: string): string[] {
  if (!statSync(path, { throwIfNoEntry: false })) throw new Error(`no such test file or folder: ${path}`);
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const child = join(path, entry.name);
    if (entry.isDirectory()) return testFiles(child);
    return entry.name.endsWith('.test.ts') ? [child] : [];
  });
}
