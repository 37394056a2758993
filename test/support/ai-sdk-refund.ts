// An AI SDK refund tool as a team would have written it before the contract (`tool({ description, inputSchema,
// execute })`), and its contract declaration with the fields the AI SDK has no word for. The schema half is
// sandbox-safe, so the AI SDK test's workflows declare the tool from it; the worker builds the whole tool.
import { tool } from 'ai';
import { z } from 'zod';
import { declareAiSdkTool, implementAiSdkTool, type AiSdkToolContext } from '../../src/ai-sdk/index.js';
import type { ReconcileOutcome } from '../../src/index.js';
import { chargeOutput } from '../../testkit/payment-declarations.js';

type Refund = z.infer<typeof chargeOutput>;

/** What the model sees of the refund tool, and what it may send. */
export const refundToolSchema = {
  description: 'Refund a payment to its customer, once per payment id.',
  inputSchema: z.strictObject({ payment_id: z.string().regex(/^pay_\w+$/), amount_cents: z.number().int().positive() }),
  // The idempotency key the contract derives, sent upstream so that the service and `reconcile` know the request.
  contextSchema: z.object({ idempotencyKey: z.string() }),
};

/** The refund's contract: a write with a business key (the payment id) that a person approves. */
export const aiRefundDeclaration = declareAiSdkTool(refundToolSchema, {
  name: 'payments.ai_refund',
  output: chargeOutput,
  effect: 'write',
  requiresApproval: true,
  source: { label: 'payments-api', type: 'http_api' },
  businessKey: ['payment_id'],
});

/** The AI SDK tool itself, talking to the fake payments service at `baseUrl`. */
function refundTool(baseUrl: string) {
  return tool({
    ...refundToolSchema,
    execute: async (input, { context }: { context: Pick<AiSdkToolContext, 'idempotencyKey'> }): Promise<Refund> => {
      const res = await fetch(`${baseUrl}/charges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          idempotency_key: context.idempotencyKey,
          customer: input.payment_id,
          amount_cents: input.amount_cents,
        }),
      });
      if (!res.ok) throw new Error(`payments answered ${res.status}`);
      const { charge_id, amount_cents, status } = (await res.json()) as Refund;
      return { charge_id, amount_cents, status };
    },
  });
}

/** The refund as a contract tool on the worker: the AI SDK tool's execute, a receipt, and how to ask about a key. */
export function aiRefundImplementation(baseUrl: string) {
  return implementAiSdkTool(aiRefundDeclaration, refundTool(baseUrl), {
    describe: (refund) => ({
      receipt: { externalId: refund.charge_id },
      evidence: [
        { kind: 'payment_receipt', locator: `payments/charges/${refund.charge_id}`, supports: ['/charge_id'] },
      ],
    }),
    reconcile: async (key): Promise<ReconcileOutcome<Refund>> => {
      const res = await fetch(`${baseUrl}/charges/${encodeURIComponent(key)}`);
      if (res.status === 404) return { state: 'not_committed' };
      if (!res.ok) return { state: 'unknown', reason: `status query answered ${res.status}` };
      const { charge_id, amount_cents, status } = (await res.json()) as Refund;
      return {
        state: 'committed',
        output: { data: { charge_id, amount_cents, status }, receipt: { externalId: charge_id } },
      };
    },
  });
}
