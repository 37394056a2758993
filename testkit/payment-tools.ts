import { z } from 'zod';
import { ToolError, ToolRegistry, type HandlerContext, type ReconcileOutcome } from '../src/index.js';
import { businessIdempotencyKey } from '../src/contract/idempotency-key.js';
import { implementTool } from '../src/contract/implement-tool.js';
import { defineTool } from './define-tool.js';
import type { chargeInput, chargeOutput } from './payment-declarations.js';
import {
  CHARGE_DECLARATION,
  chargeDeclaration,
  customerDeclaration,
  customerOutput,
  TOOLS,
} from './payment-declarations.js';

export { TOOLS } from './payment-declarations.js';

type ChargeData = z.infer<typeof chargeOutput>;

interface ChargeBody {
  readonly charge_id: string;
  readonly amount_cents: number;
  readonly status: 'succeeded';
  readonly created_at: string;
}

/** Where a charge stands when it reaches its dispatch point: just before its fence, or past it and about to send. */
export type DispatchPoint = 'before_fence' | 'after_fence';

/** What a fault test answers at a dispatch point. */
export interface DispatchPointAnswer {
  /**
   * Send the charge without the attempt's deadline signal: a request already on its way when the worker froze, which
   * no abort on waking can stop (otherwise the signal, long expired by then, often aborts it first).
   */
  readonly sendRegardless: boolean;
}

/** Options of {@link paymentTools}. */
export interface PaymentToolOptions {
  readonly slowReadMs?: number;
  /** Called by the charge tools at both dispatch points (a fault test freezes the worker there). */
  readonly atDispatchPoint?: (point: DispatchPoint, idempotencyKey: string) => Promise<DispatchPointAnswer>;
}

/** The idempotency key of a charge: the business key the charge tools derive (the payment id), scoped by the package. */
export function chargeKey(tenant: string, paymentId: string, tool: string = TOOLS.charge): string {
  return businessIdempotencyKey(tool, tenant, paymentId);
}

/**
 * The payment tools, talking to the fake payments service at `baseUrl`: a charge (write with a
 * business idempotency key and `reconcile`), the same without `reconcile`, one that may not be safely retried, one
 * whose handler does not call its own dispatch fence, a refund that needs approval, a plain
 * read, a hostile read that leaks a token and adds a `status` field, a slow read for parallelism, a payout the
 * service runs as an asynchronous job (`accepted`, then polled), a replica of the customer read (a fallback), and a
 * stock read whose first answer per SKU is incomplete (a re-query).
 */
export function paymentTools(baseUrl: string, options: PaymentToolOptions = {}): ToolRegistry {
  const toOutput = (body: ChargeBody) => ({
    data: { charge_id: body.charge_id, amount_cents: body.amount_cents, status: body.status } satisfies ChargeData,
    receipt: { externalId: body.charge_id, committedAt: body.created_at },
    observedAt: body.created_at,
    evidence: [
      {
        kind: 'payment_receipt',
        locator: `payments/charges/${body.charge_id}`,
        supports: ['/charge_id', '/amount_cents'],
      },
    ],
  });
  const charge = (ownFence: boolean) => async (args: z.infer<typeof chargeInput>, ctx: HandlerContext) => {
    await options.atDispatchPoint?.('before_fence', ctx.idempotencyKey);
    if (ownFence) await ctx.beforeDispatch();
    const sendRegardless =
      (await options.atDispatchPoint?.('after_fence', ctx.idempotencyKey))?.sendRegardless === true;
    const res = await fetch(`${baseUrl}/charges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        idempotency_key: ctx.idempotencyKey,
        customer: args.customer,
        amount_cents: args.amount_cents,
      }),
      ...(ctx.signal === undefined || sendRegardless ? {} : { signal: ctx.signal }),
    });
    if (res.status === 503) throw new ToolError('UPSTREAM_UNAVAILABLE', { status: 503 });
    if (!res.ok) throw new ToolError('TOOL_ERROR', { status: res.status });
    return toOutput((await res.json()) as ChargeBody);
  };
  const reconcile = async (key: string): Promise<ReconcileOutcome<ChargeData>> => {
    const res = await fetch(`${baseUrl}/charges/${encodeURIComponent(key)}`);
    if (res.status === 404) return { state: 'not_committed' };
    if (!res.ok) return { state: 'unknown', reason: `status query answered ${res.status}` };
    return { state: 'committed', output: toOutput((await res.json()) as ChargeBody) };
  };
  const chargeSpec = { ...CHARGE_DECLARATION, handler: charge(true) };
  const payoutOutput = z.strictObject({
    payout_id: z.string(),
    amount_cents: z.number().int(),
    status: z.literal('paid'),
  });
  const payout = async (args: { amount_cents: number }, ctx: HandlerContext) => {
    await ctx.beforeDispatch();
    const res = await fetch(`${baseUrl}/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ idempotency_key: ctx.idempotencyKey, amount_cents: args.amount_cents }),
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    });
    if (res.status !== 202) throw new ToolError('TOOL_ERROR', { status: res.status });
    const job = (await res.json()) as { job_id: string; poll_after_ms: number };
    return { accepted: { handle: job.job_id, pollAfterMs: job.poll_after_ms } };
  };
  const pollPayout = async (handle: string): Promise<ReconcileOutcome<z.infer<typeof payoutOutput>>> => {
    const res = await fetch(`${baseUrl}/payouts/jobs/${encodeURIComponent(handle)}`);
    if (res.status === 404) return { state: 'not_committed' };
    const body = (await res.json()) as {
      state: 'running' | 'paid';
      payout_id?: string;
      amount_cents?: number;
      paid_at?: string;
    };
    if (body.state !== 'paid' || body.payout_id === undefined || body.amount_cents === undefined)
      return { state: 'unknown', reason: 'the payout job is still running' };
    return {
      state: 'committed',
      output: {
        data: { payout_id: body.payout_id, amount_cents: body.amount_cents, status: 'paid' },
        receipt: { externalId: body.payout_id, ...(body.paid_at === undefined ? {} : { committedAt: body.paid_at }) },
      },
    };
  };
  const stockReads = new Map<string, number>();
  return new ToolRegistry([
    implementTool(chargeDeclaration, { handler: charge(true), reconcile }),
    defineTool({ ...chargeSpec, name: TOOLS.chargeNoReconcile }),
    defineTool({ ...chargeSpec, name: TOOLS.chargeNoRetry, reconcile }),
    defineTool({ ...chargeSpec, name: TOOLS.chargeUnfenced, reconcile, handler: charge(false) }),
    defineTool({
      ...chargeSpec,
      name: TOOLS.refund,
      description: 'Refund a payment (needs approval).',
      requiresApproval: true,
      reconcile,
    }),
    defineTool({
      name: TOOLS.payout,
      description: 'Pay out to a customer; the service runs payouts as jobs.',
      input: z.strictObject({
        payout_request: z.string().regex(/^pay_\w+$/),
        amount_cents: z.number().int().positive(),
      }),
      output: payoutOutput,
      effect: 'write',
      source: { label: 'payments-api', type: 'http_api' },
      businessKey: ['payout_request'],
      handler: payout,
      poll: pollPayout,
    }),
    implementTool(customerDeclaration, {
      handler: async (args) => {
        if (args.customer_id === 'cus_missing') throw new ToolError('NOT_FOUND');
        if (args.customer_id === 'cus_throttled') throw new ToolError('RATE_LIMITED', {}, { retryAfterMs: 100 });
        return {
          data: { id: args.customer_id, name: `Customer ${args.customer_id}`, tier: 'gold' as const },
          observedAt: Date.now() - 1000,
          evidence: [{ kind: 'db_row', locator: `crm/customers/${args.customer_id}`, supports: ['/tier'] }],
        };
      },
    }),
    defineTool({
      name: TOOLS.hostile,
      description: 'A read whose handler misbehaves.',
      input: z.strictObject({ mode: z.enum(['extra_status', 'throws', 'not_object']) }),
      output: customerOutput,
      effect: 'read',
      source: { label: 'crm', type: 'database' },
      handler: async (args) => {
        if (args.mode === 'throws') throw new Error('connection string postgres://admin:hunter2@db/crm refused');
        if (args.mode === 'not_object') return 'ok' as never;
        return {
          data: { id: 'c1', name: 'x', tier: 'gold', status: 'succeeded', token: 'sk_live_abcdefghijklmnop' } as never,
        };
      },
    }),
    defineTool({
      name: TOOLS.customerReplica,
      description: 'Look up a customer on the read replica.',
      input: z.strictObject({ customer_id: z.string(), api_token: z.string().optional() }),
      output: customerOutput,
      effect: 'read',
      source: { label: 'crm-replica', type: 'database' },
      handler: async (args) => ({
        data: { id: args.customer_id, name: `Customer ${args.customer_id}`, tier: 'gold' as const },
      }),
    }),
    defineTool({
      name: TOOLS.flakyStock,
      description: 'Stock of one SKU.',
      input: z.strictObject({ sku: z.string() }),
      output: z.strictObject({ sku: z.string(), stock: z.number().int() }),
      effect: 'read',
      source: { label: 'catalog', type: 'database' },
      handler: async (args) => {
        const reads = (stockReads.get(args.sku) ?? 0) + 1;
        stockReads.set(args.sku, reads);
        return { data: reads === 1 ? ({ sku: args.sku } as never) : { sku: args.sku, stock: 7 } };
      },
    }),
    defineTool({
      name: TOOLS.slowRead,
      description: 'A read that takes a while.',
      input: z.strictObject({ sku: z.string() }),
      output: z.strictObject({ sku: z.string(), stock: z.number().int() }),
      effect: 'read',
      source: { label: 'catalog', type: 'database' },
      handler: async (args) => {
        await new Promise((resolve) => setTimeout(resolve, options.slowReadMs ?? 1500));
        return { data: { sku: args.sku, stock: args.sku.length } };
      },
    }),
  ]);
}
