import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelResultSchema, type ModelResult } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, returning } from '../support/tools.js';

async function succeeded(): Promise<ModelResult> {
  return (await executeTool(orderTool(returning(goodOrderOutput())), { order_id: 'ord_1001' }, testContext()))
    .modelResult;
}

describe('tool-result.model.v1 cross-field rules', () => {
  it('accepts what the funnel produces', async () => {
    assert.ok(modelResultSchema.safeParse(await succeeded()).success);
  });

  const error = {
    code: 'TOOL_ERROR',
    category: 'internal',
    message: 'x',
    retryable: false,
    recovery: 'explain',
  } as const;
  const inconsistent: [string, (r: ModelResult) => ModelResult][] = [
    ['failed with data', (r) => ({ ...r, status: 'failed', error })],
    ['failed without an error', (r) => ({ ...r, status: 'failed', data: null })],
    ['succeeded with an error', (r) => ({ ...r, error })],
    [
      'succeeded but truncated',
      (r) => ({ ...r, completeness: { ...r.completeness, state: 'truncated', next: { type: 'offset', value: 1 } } }),
    ],
    ['partial yet complete and uncommitted', (r) => ({ ...r, status: 'partial' })],
    ['unknown with a known outcome', (r) => ({ ...r, status: 'unknown', data: null, error })],
    [
      'a receipt on a read',
      (r) => ({ ...r, execution: { ...r.execution, receipt: { external_id: 'x', committed_at: null } } }),
    ],
  ];
  for (const [what, mutate] of inconsistent) {
    it(`rejects ${what}`, async () => {
      const parsed = modelResultSchema.safeParse(mutate(await succeeded()));
      assert.equal(parsed.success, false);
      assert.ok(parsed.error.issues.some((issue) => issue.code === 'custom'));
    });
  }
});
