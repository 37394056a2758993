// Typed calls, checked by the compiler the way a user's code is: arguments against the declaration's input schema,
// a successful result's data against its output schema. Samples compile against the public entry points.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleCompileErrors } from '../support/doc-samples.js';

const declarations = `// tools.ts
import { z } from 'zod';
import { declareTool } from 'temporal-tool-contract';

export const getOrder = declareTool({
  name: 'orders.get',
  description: 'Look up one order by id.',
  input: z.strictObject({ order_id: z.string(), include_lines: z.boolean().optional() }),
  output: z.strictObject({ id: z.string(), total_cents: z.number().int() }),
  effect: 'read',
  source: { label: 'orders-api', type: 'http_api' },
});

export const createRefund = declareTool({
  name: 'refunds.create',
  description: 'Refund an order.',
  input: z.strictObject({ order_id: z.string(), amount_cents: z.number().int().positive() }),
  output: z.strictObject({ refund_id: z.string() }),
  effect: 'write',
  source: { label: 'payments', type: 'http_api' },
  businessKey: ['order_id'],
});
`;

/** The cases, each a workflow body: compiled together (one program) in files of their own. */
const CASES = {
  correct: `
  const order = await callTool(getOrder, { order_id: 'ord_1' }, { principal });
  if (order.modelResult.status === 'succeeded') {
    const cents: number = order.modelResult.data.total_cents;
    const id: string = order.modelResult.data.id;
    void cents; void id;
  }
  const refund = await callTool(createRefund, { order_id: 'ord_1', amount_cents: 500 }, { principal });
  const refundId: string | undefined = refund.modelResult.status === 'succeeded' ? refund.modelResult.data.refund_id : undefined;
  void refundId;`,
  wrongArguments: `
  await callTool(getOrder, {}, { principal });
  await callTool(getOrder, { order_id: 42 }, { principal });
  await callTool(createRefund, { order_id: 'ord_1', amount_cents: 500, note: 'x' }, { principal });`,
  undeclaredData: `
  const order = await callTool(getOrder, { order_id: 'ord_1' }, { principal });
  if (order.modelResult.status === 'succeeded') void order.modelResult.data.shipped_at;
  void order.modelResult.data.total_cents;`,
  byName: `
  const order = await callTool('orders.get', { anything: true }, { principal });
  if (order.modelResult.status === 'succeeded') {
    const cents: number = order.modelResult.data.total_cents;
    void cents;
  }`,
} as const;

const HEADER = `import { callTool } from 'temporal-tool-contract/workflows';
import { createRefund, getOrder } from './tools.js';

const principal = { tenant: 'acme', subject: 'user-1' };

export async function check(): Promise<void> {`;

/** Each case's compile errors, as `<line within its body>: <message>` (one compile for all of them). */
const errors: Record<keyof typeof CASES, string[]> = (() => {
  const samples = Object.entries(CASES).map(([name, body]) => ({
    fileName: `${name}.ts`,
    code: `${HEADER}${body}\n}\n`,
  }));
  const all = sampleCompileErrors([{ fileName: 'tools.ts', code: declarations }, ...samples], 'typed-calls');
  const bodyStart = HEADER.split('\n').length;
  const byCase = Object.fromEntries(Object.keys(CASES).map((name) => [name, [] as string[]])) as Record<
    keyof typeof CASES,
    string[]
  >;
  for (const error of all) {
    const match = /\/(\w+)\.ts:(\d+) (.*)/.exec(error);
    const name = match?.[1] as keyof typeof CASES | undefined;
    if (match === null || name === undefined || !(name in byCase)) throw new Error(`unexpected error: ${error}`);
    byCase[name].push(`${Number(match[2]) - bodyStart + 1}: ${match[3]}`);
  }
  return byCase;
})();

const lines = (list: readonly string[]) => [...new Set(list.map((error) => error.split(':')[0]))];

describe('callTool with a declaration', () => {
  it('compiles a correct call, and types the data of a successful result by the output schema', () => {
    assert.deepEqual(errors.correct, []);
  });

  it('refuses to compile wrong arguments: a missing field, a wrong type, an unknown field', () => {
    assert.deepEqual(lines(errors.wrongArguments), ['2', '3', '4'], errors.wrongArguments.join('\n'));
  });

  it('refuses to compile reading data the output schema does not declare, or reading it before checking the status', () => {
    assert.deepEqual(lines(errors.undeclaredData), ['3', '4'], errors.undeclaredData.join('\n'));
  });

  it('a call by name stays untyped: its data is JSON that must be narrowed before use', () => {
    assert.deepEqual(lines(errors.byName), ['4'], errors.byName.join('\n'));
  });
});
