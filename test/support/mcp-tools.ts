// Tools of the MCP server tests. `tools` is a tools module for `tool-contract mcp --tools <module>`: the registry the
// runtime harness's worker serves (the payment tools and the tip below), so the MCP server lists what that worker
// runs; the payments service's address comes from the test.
import { z } from 'zod';
import { ToolError, type AnyToolImplementation } from '../../src/index.js';
import { paymentTools } from '../../testkit/payment-tools.js';
import { defineTool } from '../../testkit/define-tool.js';

/** The tip tool's name. */
export const TIP_TOOL = 'payments.tip';

const tipOutput = z.strictObject({
  charge_id: z.string(),
  amount_cents: z.number().int(),
  status: z.literal('succeeded'),
});

/**
 * A write with no business idempotency key: every call is a new tip, so its key is the call's own (derived from the
 * workflow id). Over MCP, only the server's request identity keeps a resent request from tipping twice.
 */
export function tipTool(baseUrl: () => string): AnyToolImplementation {
  return defineTool({
    name: TIP_TOOL,
    description: 'Tip a customer; every call is a new tip.',
    input: z.strictObject({ customer: z.string(), amount_cents: z.number().int().positive() }),
    output: tipOutput,
    effect: 'write',
    source: { label: 'payments-api', type: 'http_api' },
    handler: async (args, ctx) => {
      await ctx.beforeDispatch();
      const res = await fetch(`${baseUrl()}/charges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          idempotency_key: ctx.idempotencyKey,
          customer: args.customer,
          amount_cents: args.amount_cents,
        }),
        ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      });
      if (!res.ok) throw new ToolError('TOOL_ERROR', { status: res.status });
      const body = (await res.json()) as { charge_id: string; amount_cents: number; created_at: string };
      return {
        data: { charge_id: body.charge_id, amount_cents: body.amount_cents, status: 'succeeded' as const },
        receipt: { externalId: body.charge_id, committedAt: body.created_at },
        observedAt: body.created_at,
      };
    },
  });
}

const paymentsUrl = process.env['TTC_TEST_PAYMENTS_URL'] ?? 'http://127.0.0.1:9';
export const tools = [...paymentTools(paymentsUrl).list(), tipTool(() => paymentsUrl)];
