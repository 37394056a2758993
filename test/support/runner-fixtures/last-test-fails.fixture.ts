// Runner fixture: three passing tests, a suite with a subtest, and a failing last test. Run only by
// test/unit/test-runner.test.ts (the name does not end in .test.ts, so the suite itself never picks it up).
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';

test('first', () => {});
test('second', () => {});
describe('a suite', () => {
  it('with a subtest', async (t) => {
    await t.test('the subtest', () => {});
  });
});
test('the last test fails', () => {
  assert.equal(1, 2);
});
