// Declarations of two of the payment tools (testkit/payment-tools.ts implements them), for workflow code that calls
// them by declaration, typed. Sandbox-safe: the test workflows import them.
import { z } from 'zod';
import { declareTool } from '../src/contract/declare-tool.js';

/** Tool names of the payment tools (integration and reliability tests, end-to-end benchmarks). */
export const TOOLS = {
  charge: 'payments.charge',
  chargeNoReconcile: 'payments.charge_blind',
  /** Reconciles, but is never listed in `safeRetryTools`: an uncommitted write is not sent again. */
  chargeNoRetry: 'payments.charge_no_retry',
  /** As `chargeNoRetry`, but its handler never calls `ctx.beforeDispatch()` (as many users' tools will not). */
  chargeUnfenced: 'payments.charge_unfenced',
  refund: 'payments.refund',
  customer: 'customers.get',
  hostile: 'customers.hostile',
  slowRead: 'catalog.slow_lookup',
  /** A write the service runs as an asynchronous job: accepted at once, polled by job handle until paid. */
  payout: 'payments.payout',
  /** The same read as `customer`, from a replica: a fallback tool. */
  customerReplica: 'customers.get_replica',
  /** A read whose first answer per SKU lacks a field (caught mid-update); later answers are whole. */
  flakyStock: 'catalog.stock',
} as const;

export const chargeInput = z.strictObject({
  payment_id: z.string().regex(/^pay_\w+$/),
  customer: z.string(),
  amount_cents: z.number().int().positive(),
});
export const chargeOutput = z.strictObject({
  charge_id: z.string(),
  amount_cents: z.number().int(),
  status: z.literal('succeeded'),
});
export const customerOutput = z.strictObject({ id: z.string(), name: z.string(), tier: z.enum(['basic', 'gold']) });

/** What every charge tool declares but its name (the variants differ in name, approval and how they run). */
export const CHARGE_DECLARATION = {
  description: 'Charge a customer once per payment id.',
  input: chargeInput,
  output: chargeOutput,
  effect: 'write' as const,
  source: { label: 'payments-api', type: 'http_api' },
  businessKey: ['payment_id'] as const,
};

/** The charge: a write with a business idempotency key (the payment id). */
export const chargeDeclaration = declareTool({ ...CHARGE_DECLARATION, name: TOOLS.charge });

/** The customer lookup: a plain read. */
export const customerDeclaration = declareTool({
  name: TOOLS.customer,
  description: 'Look up a customer.',
  input: z.strictObject({ customer_id: z.string(), api_token: z.string().optional() }),
  output: customerOutput,
  effect: 'read',
  source: { label: 'crm', type: 'database' },
});
