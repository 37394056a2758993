import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BEARER, HOSTILE_CASES, orderArgs, PASSWORD, SECRET } from '../support/hostile-corpus.js';
import { executeTool, ToolRegistry } from '../support/hostile-corpus.imports.js';
import { assertNothingSensitive, codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning } from '../support/tools.js';

const ctx = testContext();

describe('hostile corpus: every case gets its catalogued outcome and leaks nothing', () => {
  it('has at least 60 cases', () => assert.ok(HOSTILE_CASES.length >= 60, `only ${HOSTILE_CASES.length} cases`));

  for (const testCase of HOSTILE_CASES) {
    it(testCase.name, async () => {
      const result = await executeTool(testCase.tool, testCase.args === undefined ? orderArgs : testCase.args, ctx);
      assert.equal(codeOf(result), testCase.code);
      if (testCase.status) assert.equal(result.modelResult.status, testCase.status);
      if (testCase.code !== null) assert.equal(result.modelResult.data, null, 'no data travels with an error');
      assertNothingSensitive(result, ctx, [SECRET, BEARER, PASSWORD]);
      testCase.check?.(result, ctx);
    });
  }

  it('unknown tool names, including prototype names, are UNKNOWN_TOOL and never retried', async () => {
    const registry = new ToolRegistry([orderTool(returning(goodOrderOutput()))]);
    for (const name of ['orders.delete', '__proto__', 'toString', 'constructor', '', 42, null]) {
      const result = await registry.execute(name, orderArgs, ctx);
      assert.equal(codeOf(result), 'UNKNOWN_TOOL', String(name));
      assert.equal(result.modelResult.error!.retryable, false);
      assert.equal(result.modelResult.execution.outcome, 'not_started');
    }
  });
});

describe('hostile evidence text', () => {
  it('a token in an evidence locator URL and a huge quote are scrubbed and bounded', async () => {
    const output = {
      ...goodOrderOutput(),
      evidence: [
        {
          kind: 'http',
          locator: `https://orders.example/ord_1001?access=${SECRET}`,
          supports: ['/id'],
          quote: 'q'.repeat(100_000),
        },
      ],
    };
    const result = await executeTool(orderTool(returning(output)), orderArgs, ctx);
    const [evidence] = result.modelResult.evidence;
    assert.ok(!evidence!.locator.includes(SECRET));
    assert.ok(evidence!.quote!.length < 10_000);
    assertNothingSensitive(result, ctx, [SECRET]);
  });
});
