// The cases of the contract benchmark, shared by bench/contract.bench.ts and bench/profile-funnel.ts: a ~2 KB read
// result, a ~1 MB / 10,000-item list fitted to 16 KB, and a 200,000-key object over the raw size gate.
import { z } from 'zod';
import { nodeSha256Hex } from '../../activities/node-sha256.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { FIXED_NOW, testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

/** The tests' execution context, with what the plugin's activities pass: node:crypto's SHA-256 (same digests). */
export const benchContext: ExecutionContext = testContext({ sha256: nodeSha256Hex });

const line = z.strictObject({
  sku: z.string(),
  description: z.string(),
  quantity: z.number().int(),
  cents: z.number().int(),
});
const order = z.strictObject({
  id: z.string(),
  status: z.enum(['paid', 'shipped', 'refunded']),
  customer: z.strictObject({ id: z.string(), name: z.string(), email: z.string() }),
  total_cents: z.number().int(),
  currency: z.string(),
  lines: z.array(line),
  notes: z.string(),
});

function smallOrder(): z.infer<typeof order> {
  const lines = Array.from({ length: 20 }, (_, i) => ({
    sku: `SKU-${1000 + i}`,
    description: `Item ${i}: blue widget, size M`,
    quantity: 1 + (i % 3),
    cents: 1250 + i * 10,
  }));
  return {
    id: 'ord_1001',
    status: 'paid',
    customer: { id: 'cus_42', name: 'Ada Lovelace', email: 'ada@example.com' },
    total_cents: lines.reduce((sum, l) => sum + l.quantity * l.cents, 0),
    currency: 'EUR',
    lines,
    notes: 'Leave at the front desk. Fragile. Gift wrap requested.',
  };
}

export const event = z.strictObject({
  id: z.string(),
  kind: z.string(),
  at: z.string(),
  amount_cents: z.number().int(),
  tags: z.array(z.string()),
});
export const eventList = z.strictObject({ events: z.array(event) });

export function largeList(count = 10_000): z.infer<typeof eventList> {
  return {
    events: Array.from({ length: count }, (_, i) => ({
      id: `evt_${String(i).padStart(6, '0')}`,
      kind: i % 2 ? 'captured' : 'authorized',
      at: new Date(FIXED_NOW - i * 60_000).toISOString(),
      amount_cents: 1000 + (i % 5000),
      tags: ['card', i % 3 ? 'eu' : 'us'],
    })),
  };
}

const attributes = z.record(z.string(), z.number());
export const wideData = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key_${i}`, i]));

export const smallData = smallOrder();
export const largeData = largeList();

export const smallTool = defineTool({
  name: 'orders.get',
  description: 'One order.',
  input: z.strictObject({ order_id: z.string() }),
  output: order,
  effect: 'read',
  source: { label: 'orders-db', type: 'database' },
  handler: async () => ({ data: smallData, observedAt: FIXED_NOW - 1000 }),
});

/** The payment events tool with a given budget, answering whatever `data()` holds when it is called. */
export function eventsTool(
  budget: { readonly maxBytes: number; readonly maxItems: number },
  data: () => z.infer<typeof eventList>,
) {
  return defineTool({
    name: 'payments.events',
    description: 'Payment events.',
    input: z.strictObject({ since: z.string() }),
    output: eventList,
    effect: 'read',
    source: { label: 'payments-api', type: 'http_api' },
    budget: { ...budget, itemsPointer: '/events' },
    handler: async () => ({ data: data(), observedAt: FIXED_NOW - 1000 }),
  });
}

export const largeTool = eventsTool({ maxBytes: 16_384, maxItems: 10_000 }, () => largeData);

export const wideTool = defineTool({
  name: 'attributes.get',
  description: 'Every attribute of a record.',
  input: z.strictObject({ id: z.string() }),
  output: attributes,
  effect: 'read',
  source: { label: 'attributes-db', type: 'database' },
  handler: async () => ({ data: wideData, observedAt: FIXED_NOW - 1000 }),
});
