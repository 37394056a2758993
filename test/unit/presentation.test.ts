import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { toResponsesOutput } from '../../src/adapters/openai.js';
import { modelResultSchema } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { testContext } from '../../testkit/context.js';

/** Seed 000's order lookup with its presentation. */
const shipped = (modelContent: string, userVisible = true) =>
  defineTool({
    name: 'orders.get',
    description: 'Look up one order.',
    input: z.strictObject({ order_id: z.string() }),
    output: z.strictObject({ order_id: z.string(), status: z.string(), shipped_at: z.string() }),
    effect: 'read',
    source: { label: 'orders-db', type: 'database' },
    handler: (args) =>
      Promise.resolve({
        data: { order_id: args.order_id, status: 'shipped', shipped_at: '2026-08-31T10:20:00Z' },
        presentation: { modelContent, userVisible },
      }),
  });

describe('a presentation block (seed 000: model_content, user_visible)', () => {
  it('is shown when its figures, dates and ids are values of the data', async () => {
    const { modelResult } = await executeTool(
      shipped('Order ord_1001 shipped on 2026-08-31.'),
      { order_id: 'ord_1001' },
      testContext(),
    );
    assert.deepEqual(modelResult.presentation, {
      model_content: 'Order ord_1001 shipped on 2026-08-31.',
      user_visible: true,
    });
    assert.equal(modelResultSchema.safeParse(modelResult).success, true);
    assert.match(
      toResponsesOutput('call_1', modelResult).output,
      /"presentation":\{"model_content":"Order ord_1001 shipped on 2026-08-31\."/,
    );
  });

  it('is left out, with a warning, when it states what the data does not (content and structure must agree)', async () => {
    const { modelResult } = await executeTool(
      shipped('Order ord_1001 shipped on 2026-09-02; refund of 45 EUR issued.'),
      { order_id: 'ord_1001' },
      testContext(),
    );
    assert.equal(modelResult.presentation, undefined);
    assert.deepEqual(
      modelResult.warnings.map((warning) => warning.code),
      ['PRESENTATION_UNSUPPORTED'],
    );
  });

  it('is redacted like any handler text, and a malformed one is a protocol violation', async () => {
    // The call's own idempotency key, echoed in the data and in the sentence: supported, and hidden in both.
    const key = testContext().idempotencyKey;
    const echoing = defineTool({
      ...shipped('x'),
      name: 'orders.get_echo',
      handler: () =>
        Promise.resolve({
          data: { order_id: key, status: 'shipped', shipped_at: '2026-08-31T10:20:00Z' },
          presentation: { modelContent: `Order ${key} shipped.`, userVisible: false },
        }),
    });
    const { modelResult } = await executeTool(echoing, { order_id: 'ord_1001' }, testContext());
    assert.deepEqual(modelResult.presentation, { model_content: 'Order [REDACTED] shipped.', user_visible: false });
    const broken = defineTool({
      ...shipped('x'),
      name: 'orders.get_broken',
      handler: () =>
        Promise.resolve({
          data: { order_id: 'o', status: 's', shipped_at: 't' },
          presentation: { modelContent: 'x', userVisible: 'yes' } as never,
        }),
    });
    assert.equal(
      (await executeTool(broken, { order_id: 'o' }, testContext())).modelResult.error?.code,
      'OUTPUT_CONTRACT_VIOLATION',
    );
  });
});
