// Preloaded into every test file's process (`--import`): once the file's tests and root `after` hooks have ended, the
// process must exit on its own within a grace period. If a handle keeps it alive (a server, a pool, a timer a failed
// setup left behind), the guard names the file and its open handles on stderr and exits non-zero, so the runner
// reports the file as failed instead of waiting for it forever. It replaces `--test-force-exit`, whose early exit can
// drop a file's last verdicts while the run still passes. Plain JavaScript, for the reason registrations.mjs gives.
import { AsyncResource } from 'node:async_hooks';
import { ChildProcess } from 'node:child_process';
import { Server, Socket } from 'node:net';
import { after } from 'node:test';
import { clearTimeout, setTimeout } from 'node:timers';
import process from 'node:process';
import { isMainThread } from 'node:worker_threads';

/** Exit code of a file that kept running after its tests: distinct from a test failure's 1. */
const STUCK_EXIT_CODE = 86;
const graceMs = Number(process.env.TTC_TEST_EXIT_GRACE_MS ?? 10_000);
// If an earlier root `after` hook fails, the hooks after it (the watch below among them) never run; the backstop then
// starts the same check. It is longer than any hook's own timeout (test/support uses 300 s), so it never cuts a slow
// but working teardown short.
const backstopMs = Number(process.env.TTC_TEST_EXIT_BACKSTOP_MS ?? 420_000);

if (isMainThread && process.env.NODE_TEST_CONTEXT === 'child-v8') {
  const file = process.argv[1] ?? '(unknown file)';
  const exitUnlessGone = (waitedMs, since) => {
    setTimeout(() => {
      process.stderr.write(
        `\n# exit-guard: ${file} still running ${waitedMs} ms after ${since}; open handles:\n${describeOpenHandles()}\n`,
      );
      process.exit(STUCK_EXIT_CODE);
    }, waitedMs).unref();
  };
  // `after` attaches a hook to the test whose async context it is called from. The first hook below is registered
  // before the file's own, so it runs first; from the async context of a resource made here, outside every test, it
  // appends the watch to the root's `after` hooks, behind the file's own, so the watch runs once every other has ended.
  const outsideEveryTest = new AsyncResource('ttc-exit-guard');
  after(() => {
    const backstop = setTimeout(() => exitUnlessGone(0, 'its after hooks began'), backstopMs).unref();
    outsideEveryTest.runInAsyncScope(() =>
      after(() => {
        clearTimeout(backstop);
        exitUnlessGone(graceMs, 'its tests and after hooks ended');
      }),
    );
  });
}

/** One line per open handle, e.g. `Socket 127.0.0.1:51234 -> 127.0.0.1:5432`, `ChildProcess temporal (pid 4242)`. */
function describeOpenHandles() {
  // `_getActiveHandles` is undocumented but long-standing; the documented `getActiveResourcesInfo` names types only.
  const handles = process._getActiveHandles?.() ?? [];
  const lines = handles.map(describeHandle).filter((line) => line !== null);
  const types = process.getActiveResourcesInfo().filter((type) => type !== 'TTYWrap');
  return [...lines, `  resource types: ${types.join(', ') || '(none)'}`].join('\n');
}

function describeHandle(handle) {
  if (handle instanceof Socket) {
    // The process's own stdio (its report to the runner) never keeps it alive alone.
    if (handle === process.stdout || handle === process.stderr || handle === process.stdin) return null;
    const local = handle.localAddress === undefined ? '' : `${handle.localAddress}:${handle.localPort}`;
    const remote =
      handle.remoteAddress === undefined ? '(unconnected)' : `${handle.remoteAddress}:${handle.remotePort}`;
    return `  Socket ${local} -> ${remote}`;
  }
  if (handle instanceof Server) return `  Server listening on ${JSON.stringify(handle.address())}`;
  if (handle instanceof ChildProcess)
    return `  ChildProcess ${handle.spawnfile} (pid ${handle.pid ?? '?'}) ${handle.spawnargs.slice(1, 4).join(' ')}`;
  return `  ${handle?.constructor?.name ?? typeof handle}`;
}
