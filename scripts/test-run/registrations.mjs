// Preloaded into every test file's process (`--import`): writes each test the file registers — tests, suites and
// subtests alike — to a ledger file the runner named, synchronously, the moment the runner creates it. That record
// does not travel with the runner's own report stream, so a process that ends before its report is read (an early
// exit, a crash, a kill) still leaves behind what it registered, and the runner can name the tests that got no
// verdict (scripts/test-run/verdicts.ts, which also describes the lines).
//
// Node's runner makes every test, suite and hook an AsyncResource of type `Test`, so an async hook sees each one as it
// is constructed, without wrapping the runner's functions (which would move the locations it reports into this file).
// Plain JavaScript: preloads also run in the worker threads a test starts (Temporal's workflow threads), where the
// TypeScript loader is not in place.
import { createHook } from 'node:async_hooks';
import { openSync, writeSync } from 'node:fs';
import process from 'node:process';
import { isMainThread } from 'node:worker_threads';
import { reapedChildrenCpuMs } from './children-cpu.mjs';

const dir = process.env.TTC_TEST_REGISTRATIONS_DIR;
if (isMainThread && process.env.NODE_TEST_CONTEXT === 'child-v8' && dir !== undefined) {
  const file = process.argv[1] ?? '(unknown file)';
  const ledger = openSync(`${dir}/${process.pid}.jsonl`, 'a');
  const write = (line) => writeSync(ledger, `${JSON.stringify(line)}\n`);
  let count = 0;
  createHook({
    init(_asyncId, type, _trigger, resource) {
      // Hooks are `Test` resources too (class TestHook); they get no verdict of their own.
      if (type !== 'Test' || resource.constructor.name === 'TestHook') return;
      const n = ++count;
      write({ file, n, ...(resource.constructor.name === 'Suite' ? { suite: true } : {}) });
      // The hook runs inside the constructor, before the test has its name; the microtask after it sees the whole test.
      globalThis.queueMicrotask(() =>
        write(
          resource.parent === null
            ? { file, n, root: true }
            : { file, n, name: resource.name ?? '<anonymous>', nesting: resource.nesting ?? 0 },
        ),
      );
    },
  }).enable();
  // The CPU time of the process and of the children it spawned and reaped (CLI processes, workers, npm), for the
  // run's summary of where the time goes: on a small machine the run's length is its CPU time over the cores.
  process.once('exit', () => {
    const { user, system } = process.cpuUsage();
    write({ file, cpuMs: Math.round((user + system) / 1000) + reapedChildrenCpuMs() });
  });
}
