// Runner fixture: the second test ends the process with exit code 0, so the runner's own report says nothing about
// the tests after it and Node's runner counts the file as passed. Run only by test/unit/test-runner.test.ts.
import { test } from 'node:test';

test('before the exit', () => {});
test('ends the process', () => {
  process.exit(0);
});
test('never runs', () => {});
test('never runs either', () => {});
