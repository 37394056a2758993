import { z } from 'zod';
import { type ToolOutput, type ToolDeclarationSpec, type ToolImplementationSpec } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';

const order = z.strictObject({
  id: z.string(),
  status: z.enum(['paid', 'shipped', 'refunded']),
  total_cents: z.number().int(),
  lines: z.array(z.strictObject({ sku: z.string(), cents: z.number().int() })),
});
export type Order = z.infer<typeof order>;

export const sampleOrder: Order = {
  id: 'ord_1001',
  status: 'paid',
  total_cents: 3500,
  lines: [
    { sku: 'book', cents: 2000 },
    { sku: 'pen', cents: 1500 },
  ],
};

/**
 * A read tool whose handler is replaced per test: `orderTool(async () => ({ data: ... }))`.
 * It declares an invariant, freshness, an allowlist and a business error, so every layer has something to check.
 */
export function orderTool(
  handler: ToolImplementationSpec<z.ZodType<{ order_id: string }>, typeof order>['handler'],
  overrides: Partial<
    ToolDeclarationSpec<z.ZodType<{ order_id: string }>, typeof order> &
      ToolImplementationSpec<z.ZodType<{ order_id: string }>, typeof order>
  > = {},
) {
  return defineTool({
    name: 'orders.get',
    description: 'Look up one order by id.',
    input: z.strictObject({ order_id: z.string().regex(/^ord_\w+$/) }),
    output: order,
    effect: 'read',
    source: { label: 'orders-db', type: 'database', allowlist: ['orders-db', 'orders-replica'] },
    invariants: [
      {
        id: 'total-equals-lines',
        version: 2,
        check: (data) =>
          data.total_cents === data.lines.reduce((sum, line) => sum + line.cents, 0) ||
          'total differs from the sum of lines',
      },
    ],
    freshness: { maxAgeMs: 60_000, onStale: 'fail' },
    businessErrors: { ORDER_ARCHIVED: { message: 'The order is archived and cannot be shown.' } },
    handler,
    ...overrides,
  });
}

/** A handler returning `output` as is, for any tool (typed loosely on purpose: hostile tests return malformed envelopes). */
export function returning(output: unknown): () => Promise<never> {
  return () => Promise.resolve(output as never);
}

/** A fresh, well-formed order result observed just before the test clock. */
export function goodOrderOutput(observedAt = '2026-11-30T11:59:30.000Z'): ToolOutput<Order> {
  return {
    data: structuredClone(sampleOrder),
    observedAt,
    evidence: [
      { kind: 'db_row', locator: 'orders/ord_1001', supports: ['/total_cents', '/lines/0'], quote: 'total 3500' },
    ],
  };
}

const refund = z.strictObject({
  refund_id: z.string(),
  amount_cents: z.number().int().positive(),
  status: z.enum(['pending', 'settled']),
});

/** A write tool: refunds need a receipt from the payment provider. */
export function refundTool(
  handler: ToolImplementationSpec<z.ZodType<{ order_id: string; amount_cents: number }>, typeof refund>['handler'],
) {
  return defineTool({
    name: 'payments.refund',
    description: 'Refund part or all of an order.',
    input: z.strictObject({ order_id: z.string(), amount_cents: z.number().int().positive() }),
    output: refund,
    effect: 'write',
    requiresApproval: true,
    source: { label: 'payments-api', type: 'http_api' },
    businessErrors: { ORDER_NOT_REFUNDABLE: { message: 'This order cannot be refunded.' } },
    invariants: [{ id: 'refund-positive', version: 1, check: (data) => data.amount_cents > 0 }],
    handler,
    reconcile: () => Promise.resolve({ state: 'unknown' }),
  });
}

/** A listing tool over `count` generated items, for budget tests. */
export function listTool(count: number, budget: { maxBytes?: number; maxItems?: number; maxTextChars?: number } = {}) {
  const item = z.strictObject({ id: z.string(), title: z.string(), score: z.number() });
  return defineTool({
    name: 'catalog.search',
    description: 'Search the catalog.',
    input: z.strictObject({ query: z.string() }),
    output: z.strictObject({ items: z.array(item), total: z.number().int() }),
    effect: 'read',
    source: { label: 'catalog', type: 'search_index' },
    budget: { itemsPointer: '/items', ...budget },
    handler: () =>
      Promise.resolve({
        data: {
          items: Array.from({ length: count }, (_, i) => ({ id: `it_${i}`, title: `Item number ${i}`, score: i / 10 })),
          total: count,
        },
        evidence: count > 0 ? [{ kind: 'index_hit', locator: 'catalog/it_0', supports: ['/items/0'] }] : [],
      }),
  });
}
