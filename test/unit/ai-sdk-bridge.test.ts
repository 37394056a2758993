// The pure halves of the AI SDK bridge (src/ai-sdk): what an AI SDK tool becomes as a contract tool, and what a
// contract tool set shows the AI SDK. Their run on Temporal is test/integration/ai-sdk.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonSchema, tool } from 'ai';
import { z } from 'zod';
import {
  contractToolSet,
  declareAiSdkTool,
  implementAiSdkTool,
  type AiSdkToolContext,
} from '../../src/ai-sdk/index.js';
import { declareTool, ToolDefinitionError, type HandlerContext } from '../../src/index.js';

const inputSchema = z.strictObject({ payment_id: z.string(), amount_cents: z.number().int().positive() });
const output = z.strictObject({ refund_id: z.string() });
const fields = {
  name: 'payments.refund',
  output,
  effect: 'write',
  source: { label: 'payments', type: 'http_api' },
  businessKey: ['payment_id'],
} as const;

function handlerContext(events: string[]): HandlerContext {
  return {
    callId: 'call-1',
    operationId: 'op-1',
    idempotencyKey: 'key-1',
    attempt: 1,
    principal: { tenant: 't', subject: 's' },
    now: () => 0,
    beforeDispatch: () => {
      events.push('fence');
      return Promise.resolve();
    },
  };
}

describe('declareAiSdkTool', () => {
  it('declares what declareTool declares for the same schema, description and fields', () => {
    const declared = declareAiSdkTool({ description: 'Refund a payment.', inputSchema }, fields);
    assert.equal(
      declared.facts.revision,
      declareTool({ ...fields, description: 'Refund a payment.', input: inputSchema }).facts.revision,
    );
  });

  it('refuses an input schema the worker cannot re-validate, and a tool without a text description', () => {
    assert.throws(
      () =>
        declareAiSdkTool(
          { description: 'Refund.', inputSchema: jsonSchema<{ payment_id: string }>({ type: 'object' }) },
          fields,
        ),
      ToolDefinitionError,
    );
    assert.throws(() => declareAiSdkTool({ inputSchema }, fields), ToolDefinitionError);
  });
});

describe('implementAiSdkTool', () => {
  it("runs the tool's execute after the dispatch fence, with the contract's key, call id and principal as its context", async () => {
    const events: string[] = [];
    const seen: AiSdkToolContext[] = [];
    const refund = tool({
      description: 'Refund a payment.',
      inputSchema,
      execute: (input, { context }: { context: AiSdkToolContext }) => {
        events.push('execute');
        seen.push(context);
        return Promise.resolve({ refund_id: `re_${input.payment_id}` });
      },
    });
    const implementation = implementAiSdkTool(declareAiSdkTool(refund, fields), refund, {
      describe: (result) => ({ receipt: { externalId: result.refund_id } }),
    });
    const produced = await implementation.handler({ payment_id: 'pay_1', amount_cents: 5 }, handlerContext(events));
    assert.deepEqual(events, ['fence', 'execute']);
    assert.deepEqual(seen, [{ idempotencyKey: 'key-1', callId: 'call-1', principal: { tenant: 't', subject: 's' } }]);
    assert.deepEqual(produced, { receipt: { externalId: 're_pay_1' }, data: { refund_id: 're_pay_1' } });
  });

  it('takes the last value of a streaming execute', async () => {
    const lookup = tool({
      description: 'Look a refund up.',
      inputSchema,
      execute: async function* () {
        yield { refund_id: 'preliminary' };
        yield { refund_id: 're_final' };
      },
    });
    const implementation = implementAiSdkTool(
      declareAiSdkTool(lookup, { name: 'payments.find_refund', output, effect: 'read', source: fields.source }),
      lookup,
    );
    assert.deepEqual(await implementation.handler({ payment_id: 'pay_1', amount_cents: 5 }, handlerContext([])), {
      data: { refund_id: 're_final' },
    });
  });
});

describe('contractToolSet', () => {
  it('names each tool as providers accept it and leaves argument checks to the worker', async () => {
    const declared = declareAiSdkTool({ description: 'Refund a payment.', inputSchema }, fields);
    const tools = contractToolSet([declared], { principal: { tenant: 't', subject: 's' } });
    assert.deepEqual(Object.keys(tools), ['payments__refund']);
    const refund = tools['payments__refund']!;
    assert.match(String(refund.description), /^Refund a payment\./);
    // The model is shown the declared schema, but arguments that break it still reach the contract (INVALID_ARGUMENTS there).
    const schema = await (refund.inputSchema as ReturnType<typeof jsonSchema>).jsonSchema;
    assert.deepEqual((schema as { required?: string[] }).required, ['payment_id', 'amount_cents']);
    const validated = await (refund.inputSchema as ReturnType<typeof jsonSchema>).validate?.({ amount_cents: -5 });
    assert.deepEqual(validated, { success: true, value: { amount_cents: -5 } });
  });
});
