// The test runner (scripts/run-tests.sh → scripts/test-run/run-tests.ts) tells the truth: a failing last test fails the
// run, a file that ends before reporting its tests is named with the tests it lost even though Node's runner passes it,
// a file that keeps running after its tests is named with its open handles, and a slow but working teardown is waited
// for; the long files start first. Each runner case runs the real runner on a fixture file in a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LONG_FILES, longFilesFirst } from '../../scripts/test-run/long-files.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const fixture = (name: string): string =>
  join(PROJECT_ROOT, 'test', 'support', 'runner-fixtures', `${name}.fixture.ts`);

function runTests(file: string, env: Record<string, string> = {}): { code: number | null; output: string } {
  // The runner must start as a top-level run, not as a test file of the run this test belongs to.
  const parentEnv = { ...process.env };
  delete parentEnv['NODE_TEST_CONTEXT'];
  const run = spawnSync('scripts/run-tests.sh', [file], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...parentEnv, TTC_TEST_SHARED_SERVICES: '0', ...env },
    timeout: 120_000,
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the test runner', () => {
  it('reports a failing last test as a failure and counts every registered test, subtests included', () => {
    const { code, output } = runTests(fixture('last-test-fails'));
    assert.equal(code, 1);
    assert.match(output, /✖ the last test fails/);
    assert.match(
      output,
      /# verdicts: 5 tests and 1 suites registered, 6 verdicts \(5 passed, 1 failed, 0 skipped\) in 1 files/,
    );
    assert.doesNotMatch(output, /UNPROVEN COUNT/);
  });

  it('names a file whose process ended before reporting, with the tests that got no verdict', () => {
    const { code, output } = runTests(fixture('exits-early'));
    assert.equal(code, 1);
    assert.match(
      output,
      /UNPROVEN COUNT: .*exits-early\.fixture\.ts: \d of 4 registered tests have no verdict: .*never runs/,
    );
  });

  it('fails a file that keeps running after its tests, naming it and its open handles', () => {
    const { code, output } = runTests(fixture('stays-open'), { TTC_TEST_EXIT_GRACE_MS: '500' });
    assert.equal(code, 1);
    assert.match(
      output,
      /exit-guard: .*stays-open\.fixture\.ts still running 500 ms after its tests and after hooks ended/,
    );
    assert.match(output, /Server listening on .*127\.0\.0\.1/);
  });

  it('waits for a slow after hook instead of cutting it short', () => {
    const { code, output } = runTests(fixture('slow-teardown'), { TTC_TEST_EXIT_GRACE_MS: '500' });
    assert.equal(code, 0, output);
    assert.match(output, /# verdicts: 1 tests and 0 suites registered, 1 verdicts \(1 passed/);
    assert.doesNotMatch(output, /exit-guard/);
  });

  it('starts the long files first, in the order of its list, and each listed file exists', () => {
    assert.ok(
      LONG_FILES.every((path) => existsSync(join(PROJECT_ROOT, path))),
      'a listed file was moved or removed',
    );
    const [first, second] = LONG_FILES.map((path) => join(PROJECT_ROOT, path)) as [string, string];
    const short = join(PROJECT_ROOT, 'test', 'a-short.test.ts');
    assert.deepEqual(longFilesFirst([short, second, first], PROJECT_ROOT), [first, second, short]);
  });
});
