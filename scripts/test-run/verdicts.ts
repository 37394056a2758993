// The run's own proof of its count: every test a file registered (written by the file's process as it registers them,
// scripts/test-run/registrations.mjs) must come back with exactly one verdict (`test:pass` or `test:fail`) in the
// runner's report, and every file must report that its process completed. A file whose process ended early — killed,
// crashed, or exited before its report was read — shows up here by name with the tests it lost, even when the runner's
// own exit code says the run passed.

/** Environment variable naming the folder where each test process writes its registrations (registrations.mjs). */
export const REGISTRATIONS_DIR_ENV = 'TTC_TEST_REGISTRATIONS_DIR';

/**
 * One line of a registrations ledger: a test, written at construction (`n` only) and again once named; or, at exit,
 * the CPU time of the process and the children it reaped (`cpuMs`, no `n`).
 */
export interface RegistrationLine {
  readonly file: string;
  /** The test's sequence number in its process. */
  readonly n?: number;
  readonly cpuMs?: number;
  readonly name?: string;
  readonly nesting?: number;
  /** A suite (`describe`), which Node's runner counts apart from tests. */
  readonly suite?: true;
  /** The runner's root, which is not a test of the file. */
  readonly root?: true;
}

/** The part of a node:test reporter event this ledger reads (Node 20's `TestsStream` events). */
export interface TestEvent {
  readonly type: string;
  readonly data?: {
    readonly name?: string;
    readonly nesting?: number;
    readonly file?: string;
    readonly skip?: unknown;
    readonly todo?: unknown;
    readonly details?: { readonly passed?: boolean; readonly duration_ms?: number; readonly type?: string };
  };
}

/** What one file registered and reported. */
export interface FileVerdicts {
  readonly file: string;
  /** Tests and suites registered. */
  registered: number;
  /** Of which suites (`describe`): Node's runner reports them apart from its count of tests. */
  suites: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Tests registered with no verdict (names, indented by nesting), when any were lost. */
  readonly lost: string[];
  /** Whether the file's process completed, and how; `null` when the runner never said. */
  completed: { readonly passed: boolean; readonly durationMs: number } | null;
  /** CPU time of the file's process and the child processes it reaped, when it exited normally. */
  cpuMs: number | null;
}

/** The whole run's tally, per file. */
export interface RunVerdicts {
  readonly files: FileVerdicts[];
  readonly registered: number;
  readonly suites: number;
  readonly reported: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Collects the registrations and events of one run; `summary()` pairs registrations with verdicts. */
export class VerdictLedger {
  private readonly registrations = new Map<string, Map<string, number>>();
  private readonly verdicts = new Map<string, Map<string, number>>();
  private readonly tallies = new Map<string, { passed: number; failed: number; skipped: number }>();
  private readonly completions = new Map<string, { passed: boolean; durationMs: number }>();
  private readonly suites = new Map<string, number>();
  private readonly cpu = new Map<string, number>();

  /** The tests a file's process registered (its registrations ledger, scripts/test-run/registrations.mjs). */
  register(lines: readonly RegistrationLine[]): void {
    const tests = new Map<string, { file: string; key: string | null; root: boolean }>();
    for (const line of lines) {
      if (line.cpuMs !== undefined) this.cpu.set(line.file, line.cpuMs);
      if (line.n === undefined) continue;
      const id = `${line.file}\u0000${line.n}`;
      const test = tests.get(id) ?? { file: line.file, key: null, root: false };
      if (line.suite === true) this.suites.set(line.file, (this.suites.get(line.file) ?? 0) + 1);
      if (line.root === true) test.root = true;
      else if (line.name !== undefined) test.key = verdictKey(line.nesting ?? 0, line.name);
      tests.set(id, test);
    }
    // A test whose process ended before it was named still counts: it is registered, under a placeholder name.
    for (const [id, test] of tests)
      if (!test.root) bump(this.registrations, test.file, test.key ?? `(unnamed test #${id.split('\u0000')[1]})`);
  }

  /** An event of the runner's report. */
  record(event: TestEvent): void {
    const { data } = event;
    const file = data?.file;
    if (data === undefined || file === undefined || data.name === undefined) return;
    // The runner reports each file as a test of nesting 0 named by the file's path: its process, not a test of it.
    if (data.nesting === 0 && data.name === file) {
      if (event.type === 'test:complete')
        this.completions.set(file, {
          passed: data.details?.passed === true,
          durationMs: data.details?.duration_ms ?? 0,
        });
      return;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') return;
    bump(this.verdicts, file, verdictKey(data.nesting ?? 0, data.name));
    const tally = this.tallies.get(file) ?? { passed: 0, failed: 0, skipped: 0 };
    if (data.skip !== undefined || data.todo !== undefined) tally.skipped++;
    else if (event.type === 'test:pass') tally.passed++;
    else tally.failed++;
    this.tallies.set(file, tally);
  }

  summary(): RunVerdicts {
    const names = new Set([...this.registrations.keys(), ...this.verdicts.keys(), ...this.completions.keys()]);
    const files = [...names].sort().map((file): FileVerdicts => {
      const registered = this.registrations.get(file) ?? new Map<string, number>();
      const reported = this.verdicts.get(file) ?? new Map<string, number>();
      const lost = [...registered].flatMap(([key, count]) =>
        Array<string>(Math.max(0, count - (reported.get(key) ?? 0))).fill(key),
      );
      return {
        file,
        registered: sum(registered),
        suites: this.suites.get(file) ?? 0,
        ...(this.tallies.get(file) ?? { passed: 0, failed: 0, skipped: 0 }),
        lost,
        completed: this.completions.get(file) ?? null,
        cpuMs: this.cpu.get(file) ?? null,
      };
    });
    const total = (pick: (file: FileVerdicts) => number): number => files.reduce((n, file) => n + pick(file), 0);
    return {
      files,
      registered: total((file) => file.registered),
      suites: total((file) => file.suites),
      reported: total((file) => file.passed + file.failed + file.skipped),
      passed: total((file) => file.passed),
      failed: total((file) => file.failed),
      skipped: total((file) => file.skipped),
    };
  }
}

/** The files whose count does not prove itself: verdicts lost or extra, or a process that never reported completing. */
export function unprovenFiles(run: RunVerdicts, expectedFiles: readonly string[]): string[] {
  const seen = new Map(run.files.map((file) => [file.file, file]));
  const problems: string[] = [];
  for (const path of expectedFiles) {
    const file = seen.get(path);
    if (file === undefined) problems.push(`${path}: the runner reported nothing for this file`);
    else if (file.completed === null) problems.push(`${path}: its process never reported completing`);
  }
  for (const file of run.files) {
    const reported = file.passed + file.failed + file.skipped;
    if (file.lost.length > 0)
      problems.push(
        `${file.file}: ${file.lost.length} of ${file.registered} registered tests have no verdict: ${file.lost.slice(0, 5).join('; ')}${file.lost.length > 5 ? '; …' : ''}`,
      );
    else if (reported !== file.registered)
      problems.push(`${file.file}: ${reported} verdicts for ${file.registered} registered tests`);
  }
  return problems;
}

function verdictKey(nesting: number, name: string): string {
  return `${'  '.repeat(nesting)}${name}`;
}

function bump(counts: Map<string, Map<string, number>>, file: string, key: string): void {
  const perFile = counts.get(file) ?? new Map<string, number>();
  perFile.set(key, (perFile.get(key) ?? 0) + 1);
  counts.set(file, perFile);
}

function sum(counts: Map<string, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
