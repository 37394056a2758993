import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolError } from '../../src/index.js';
import { executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import { type ErrorLayer } from '../../src/contract/validation-layers.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, refundTool, returning, sampleOrder } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

// Seed 003's recovery signals: a failure says at which stage it was decided and which arguments actually ran.
const ctx = testContext();
const layerOf = (execution: ToolExecution) => execution.modelResult.error?.layer;

describe('error.layer names the stage that decided the failure', () => {
  const cases: [string, () => Promise<ToolExecution>, string, ErrorLayer][] = [
    [
      'arguments the input schema refuses',
      () => executeTool(orderTool(returning(goodOrderOutput())), { order_id: 'nope' }, ctx),
      'INVALID_ARGUMENTS',
      'input',
    ],
    [
      'a catalog code the handler throws',
      () =>
        executeTool(
          orderTool(() => Promise.reject(new ToolError('NOT_FOUND'))),
          { order_id: 'ord_1' },
          ctx,
        ),
      'NOT_FOUND',
      'execution',
    ],
    [
      'a declared business code',
      () =>
        executeTool(
          orderTool(() => Promise.reject(new ToolError('ORDER_ARCHIVED'))),
          { order_id: 'ord_1' },
          ctx,
        ),
      'ORDER_ARCHIVED',
      'execution',
    ],
    [
      'an unexpected throw',
      () =>
        executeTool(
          orderTool(() => Promise.reject(new Error('boom'))),
          { order_id: 'ord_1' },
          ctx,
        ),
      'TOOL_ERROR',
      'execution',
    ],
    [
      'an envelope with undeclared keys',
      () => executeTool(orderTool(returning({ ...goodOrderOutput(), extra: 1 })), { order_id: 'ord_1' }, ctx),
      'OUTPUT_CONTRACT_VIOLATION',
      'protocol',
    ],
    [
      'output the schema refuses',
      () =>
        executeTool(
          orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, token: 'x' } })),
          { order_id: 'ord_1' },
          ctx,
        ),
      'OUTPUT_CONTRACT_VIOLATION',
      'schema',
    ],
    [
      'a broken invariant',
      () =>
        executeTool(
          orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, total_cents: 1 } })),
          { order_id: 'ord_1' },
          ctx,
        ),
      'INVARIANT_VIOLATION',
      'semantics',
    ],
    [
      'stale data',
      () => executeTool(orderTool(returning(goodOrderOutput('2020-01-01T00:00:00Z'))), { order_id: 'ord_1' }, ctx),
      'STALE_DATA',
      'evidence',
    ],
  ];
  for (const [what, run, code, layer] of cases) {
    it(`${what}: ${code} at the ${layer} layer`, async () => {
      const execution = await run();
      assert.equal(execution.modelResult.error?.code, code);
      assert.equal(layerOf(execution), layer);
    });
  }

  it('a write without a receipt is decided at the side-effect layer', async () => {
    const execution = await executeTool(
      refundTool(returning({ data: { refund_id: 'r1', amount_cents: 5, status: 'pending' } })),
      { order_id: 'o1', amount_cents: 5 },
      ctx,
    );
    assert.equal(execution.modelResult.error?.code, 'OUTCOME_UNKNOWN');
    assert.equal(layerOf(execution), 'side_effect');
  });
});

describe('applied_arguments on failures', () => {
  const weather = (handler: () => Promise<never>) =>
    defineTool({
      name: 'weather.get',
      description: 'Current weather for a city.',
      input: z.strictObject({ city: z.string().trim(), unit: z.enum(['c', 'f']).default('c') }),
      output: z.strictObject({ temp: z.number() }),
      effect: 'read',
      source: { label: 'wx', type: 'http_api' },
      handler,
    });

  it('a call that failed after its arguments were accepted shows the arguments that ran', async () => {
    const execution = await executeTool(
      weather(() => Promise.reject(new ToolError('NOT_FOUND'))),
      { city: ' Oslo ' },
      ctx,
    );
    assert.equal(execution.modelResult.status, 'failed');
    assert.deepEqual(execution.modelResult.applied_arguments, { city: 'Oslo', unit: 'c' });
  });

  it('a failed output check keeps the arguments the handler reported applying', async () => {
    const execution = await executeTool(
      weather(returning({ data: { temp: 'warm' }, appliedArguments: { city: 'Oslo, NO', unit: 'c' } })),
      { city: 'Oslo' },
      ctx,
    );
    assert.equal(execution.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
    assert.deepEqual(execution.modelResult.applied_arguments, { city: 'Oslo, NO', unit: 'c' });
  });

  it('refused arguments were never applied: no applied_arguments', async () => {
    const execution = await executeTool(weather(returning({ data: { temp: 1 } })), { city: 3 }, ctx);
    assert.equal(execution.modelResult.error?.code, 'INVALID_ARGUMENTS');
    assert.equal(execution.modelResult.applied_arguments, undefined);
  });
});

describe('applied_arguments makes transforms visible', () => {
  const since = (output: z.ZodType) =>
    defineTool({
      name: 'events.since',
      description: 'Events after a point in time.',
      input: z.strictObject({ since: output }),
      output: z.strictObject({ count: z.number() }),
      effect: 'read',
      source: { label: 'events', type: 'database' },
      handler: returning({ data: { count: 0 } }),
    });

  it('a transform to a Date is shown in its JSON form', async () => {
    const tool = since(z.string().transform((text) => new Date(Number(text) * 1000)));
    const execution = await executeTool(tool, { since: '1700000000' }, ctx);
    assert.deepEqual(execution.modelResult.applied_arguments, { since: '2023-11-14T22:13:20.000Z' });
  });

  it('a value without a faithful JSON form is not shown', async () => {
    const tool = since(z.string().transform((text) => new Map([[text, 1]])));
    const execution = await executeTool(tool, { since: 'x' }, ctx);
    assert.equal(execution.modelResult.status, 'succeeded');
    assert.equal(execution.modelResult.applied_arguments, undefined);
  });
});
