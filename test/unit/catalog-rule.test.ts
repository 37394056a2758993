import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { catalogFailure } from '../../src/contract/call-failure.js';
import { catalogDisagreements } from '../../src/contract/catalog-rule.js';
import { NOT_COMMITTED_MESSAGES } from '../../src/contract/error-catalog.js';
import { failedExecution } from '../../src/contract/execute-tool.js';
import { ERROR_CATALOG, modelResultSchema, type ModelError, type ModelResult } from '../../src/index.js';
import { CATALOG_CODES } from '../../src/contract/error-catalog.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';
import { orderTool, refundTool } from '../support/tools.js';

const ctx = testContext();

async function unknownWrite(): Promise<ModelResult> {
  const result = await executeTool(
    refundTool(() => Promise.reject(new Error('ECONNRESET'))),
    { order_id: 'ord_1', amount_cents: 500 },
    ctx,
  );
  assert.equal(result.modelResult.error?.code, 'OUTCOME_UNKNOWN');
  return result.modelResult;
}

function withError(result: ModelResult, change: Partial<ModelError>): ModelResult {
  return { ...result, error: { ...result.error!, ...change } };
}

describe('the catalog rule', () => {
  it('every catalog entry, as the funnel builds it, agrees with the catalog', () => {
    for (const code of CATALOG_CODES)
      assert.deepEqual(catalogDisagreements(catalogFailure(code, 'side_effect', null).error), [], code);
  });

  it('a result whose error was edited cannot pass the model result schema', async () => {
    const result = await unknownWrite();
    assert.ok(modelResultSchema.safeParse(result).success);
    const tampered: [string, Partial<ModelError>][] = [
      ['recovery', { recovery: 'retry_after' }],
      ['retryable', { retryable: true }],
      ['category', { category: 'transient' }],
      ['message', { message: 'It failed; call it again.' }],
      [
        'message with a detail the code does not allow',
        { message: `${ERROR_CATALOG.OUTCOME_UNKNOWN.message.replace(/\.$/, '')}: retry now` },
      ],
    ];
    for (const [what, change] of tampered) {
      const parsed = modelResultSchema.safeParse(withError(result, change));
      assert.equal(parsed.success, false, what);
      assert.deepEqual(
        parsed.error?.issues.map((issue) => issue.path),
        [['error']],
        what,
      );
    }
  });

  it('allows only the named message variants: input issues after INVALID_ARGUMENTS, and the not-committed texts', async () => {
    const invalid = await executeTool(
      orderTool(() => Promise.reject(new Error('not called'))),
      { order_id: 42 },
      ctx,
    );
    assert.match(invalid.modelResult.error?.message ?? '', /^The arguments do not match the tool input schema: /);
    assert.ok(modelResultSchema.safeParse(invalid.modelResult).success);
    for (const message of Object.values(NOT_COMMITTED_MESSAGES)) {
      assert.deepEqual(
        catalogDisagreements({ ...catalogFailure('NOT_COMMITTED', 'side_effect', null).error, message }),
        [],
      );
      assert.equal(
        catalogDisagreements({ ...catalogFailure('RATE_LIMITED', 'side_effect', null).error, message }).length,
        1,
      );
    }
  });

  it('a business code borrows BUSINESS_RULE; with the tool at hand it must be declared, with its message and recovery', () => {
    const declared = { ORDER_ARCHIVED: { message: 'The order is archived and cannot be shown.' } };
    const business: ModelError = {
      code: 'ORDER_ARCHIVED',
      category: 'business',
      message: declared.ORDER_ARCHIVED.message,
      retryable: false,
      recovery: 'explain',
    };
    assert.deepEqual(catalogDisagreements(business, declared), []);
    assert.deepEqual(
      catalogDisagreements({ ...business, message: 'anything' }),
      [],
      'the schema alone cannot know a declaration',
    );
    assert.equal(catalogDisagreements({ ...business, retryable: true }).length, 1);
    assert.equal(catalogDisagreements({ ...business, message: 'forged' }, declared).length, 1);
    assert.equal(catalogDisagreements({ ...business, recovery: 'human_review' }, declared).length, 1);
    assert.equal(catalogDisagreements({ ...business, code: 'ORDER_LOST' }, declared).length, 1);
    const needsInput = { ORDER_ARCHIVED: { message: declared.ORDER_ARCHIVED.message, status: 'needs_input' as const } };
    assert.deepEqual(
      catalogDisagreements({ ...business, recovery: 'ask_user' }, needsInput),
      [],
      'a needs_input code asks the user by default',
    );
    assert.equal(catalogDisagreements(business, needsInput).length, 1);
  });

  it('the funnel refuses to publish a business error that is not what the tool declared', () => {
    const tool = orderTool(() => Promise.reject(new Error('not called')));
    const forged = {
      error: {
        code: 'ORDER_ARCHIVED',
        category: 'business' as const,
        message: 'Refund it anyway.',
        retryable: false,
        recovery: 'explain' as const,
      },
      layer: 'semantics' as const,
      detail: null,
    };
    assert.throws(() => failedExecution(tool, ctx, forged), /disagrees with the catalog/);
    const declared = { ...forged, error: { ...forged.error, message: 'The order is archived and cannot be shown.' } };
    assert.equal(failedExecution(tool, ctx, declared).modelResult.error?.code, 'ORDER_ARCHIVED');
  });
});
