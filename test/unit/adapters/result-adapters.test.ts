// Each provider adapter's exact output for real executeTool results, type-checked against the official SDK types
// (so `tsc --noEmit` proves wire-shape compatibility), and never carrying anything from the audit.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type { Content, FunctionResponse, Interactions } from '@google/genai';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type OpenAI from 'openai';
import { toToolResultBlock, toToolResultsMessage } from '../../../src/adapters/anthropic.js';
import {
  toFunctionResponse,
  toFunctionResponseContent,
  toFunctionResult,
  toInteractionInput,
} from '../../../src/adapters/gemini.js';
import { isErrorResult, toCallToolResult } from '../../../src/adapters/mcp.js';
import { toChatToolMessage, toResponsesOutput } from '../../../src/adapters/openai.js';
import { renderModelResult } from '../../../src/adapters/render-model-result.js';
import type { ModelResult } from '../../../src/index.js';
import { testContext } from '../../../testkit/context.js';
import { assertOfficial, MCP_REVISIONS } from '../../support/mcp-official-schema.js';
import { scenarios, type Scenario } from './results.js';

let all: Awaited<ReturnType<typeof scenarios>>;
before(async () => {
  all = await scenarios();
});

const EXPECTED_ERROR_FLAG: Record<ModelResult['status'], boolean> = {
  succeeded: false,
  partial: false,
  failed: true,
  needs_input: true,
  unknown: false,
  accepted: false,
};

function each(run: (scenario: Scenario) => void): void {
  for (const scenario of Object.values(all)) run(scenario);
}

/** The text every adapter must carry: the rendered model result. */
function textOf(result: ModelResult): string {
  return renderModelResult(result).text;
}

describe('the error flag', () => {
  it('is set for failed and needs_input only; partial, unknown and accepted are not errors (a retry could duplicate a write)', () => {
    each(({ status, execution }) =>
      assert.equal(isErrorResult(execution.modelResult), EXPECTED_ERROR_FLAG[status], status),
    );
    assert.equal(all.askUser.execution.modelResult.error?.recovery, 'ask_user');
    assert.deepEqual(all.accepted.execution.modelResult.job, { handle: 'job-r-1', poll_after_ms: 500 });
    assert.equal(all.unknown.execution.modelResult.error?.recovery, 'query_status');
    assert.equal(all.committedPartial.execution.modelResult.execution.outcome, 'committed');
  });
});

describe('OpenAI Responses', () => {
  it('is a function_call_output item with the call id and the rendered result as its output string', () => {
    each(({ execution }) => {
      const item: OpenAI.Responses.ResponseInputItem = toResponsesOutput('call_abc', execution.modelResult);
      assert.deepEqual(item, {
        type: 'function_call_output',
        call_id: 'call_abc',
        output: textOf(execution.modelResult),
      });
    });
  });

  it('keeps status, error and recovery in the text (the API has no error flag)', () => {
    const item = toResponsesOutput('call_1', all.unknown.execution.modelResult);
    const parsed = JSON.parse(item.output) as ModelResult;
    assert.equal(parsed.status, 'unknown');
    assert.equal(parsed.error?.code, 'OUTCOME_UNKNOWN');
    assert.equal(parsed.error?.recovery, 'query_status');
  });
});

describe('OpenAI Chat Completions', () => {
  it('is a role:tool message with tool_call_id and the rendered result as content', () => {
    each(({ execution }) => {
      const message: OpenAI.Chat.Completions.ChatCompletionMessageParam = toChatToolMessage(
        'call_abc',
        execution.modelResult,
      );
      assert.deepEqual(message, { role: 'tool', tool_call_id: 'call_abc', content: textOf(execution.modelResult) });
    });
  });
});

describe('Anthropic Messages', () => {
  it('is a tool_result block with tool_use_id, is_error and the rendered result', () => {
    each(({ status, execution }) => {
      const block: Anthropic.Messages.ToolResultBlockParam = toToolResultBlock('toolu_01', execution.modelResult);
      assert.deepEqual(block, {
        type: 'tool_result',
        tool_use_id: 'toolu_01',
        is_error: EXPECTED_ERROR_FLAG[status],
        content: textOf(execution.modelResult),
      });
    });
  });

  it('puts every tool_result first in one user message, text after', () => {
    const message: Anthropic.Messages.MessageParam = toToolResultsMessage(
      [
        { toolUseId: 'toolu_a', result: all.succeeded.execution.modelResult },
        { toolUseId: 'toolu_b', result: all.failed.execution.modelResult },
        { toolUseId: 'toolu_c', result: all.unknown.execution.modelResult },
      ],
      ['Continue.'],
    );
    assert.equal(message.role, 'user');
    assert.ok(Array.isArray(message.content));
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['tool_result', 'tool_result', 'tool_result', 'text'],
    );
    assert.deepEqual(
      message.content.map((block) => (block.type === 'tool_result' ? [block.tool_use_id, block.is_error] : block.type)),
      [['toolu_a', false], ['toolu_b', true], ['toolu_c', false], 'text'],
    );
  });

  it('refuses to answer one tool_use twice', () => {
    const result = all.succeeded.execution.modelResult;
    assert.throws(
      () =>
        toToolResultsMessage([
          { toolUseId: 'toolu_a', result },
          { toolUseId: 'toolu_a', result },
        ]),
      (error: unknown) => (error as { code?: unknown }).code === 'DUPLICATE_CALL_ID',
    );
  });
});

describe('Gemini', () => {
  it('is a functionResponse with id, name and an object response: output for results, error for errors', () => {
    each(({ status, execution }) => {
      const response: FunctionResponse = toFunctionResponse({
        id: 'fc_1',
        name: 'orders__get',
        result: execution.modelResult,
      });
      const rendered = renderModelResult(execution.modelResult).value;
      assert.deepEqual(response, {
        id: 'fc_1',
        name: 'orders__get',
        response: EXPECTED_ERROR_FLAG[status] ? { error: rendered } : { output: rendered },
      });
    });
  });

  it('carries all responses of a turn in one user Content and refuses duplicate ids', () => {
    const content: Content = toFunctionResponseContent([
      { id: 'a', name: 'orders__get', result: all.succeeded.execution.modelResult },
      { id: 'b', name: 'payments__refund', result: all.unknown.execution.modelResult },
    ]);
    assert.equal(content.role, 'user');
    assert.deepEqual(
      content.parts?.map((part) => part.functionResponse?.id),
      ['a', 'b'],
    );
    assert.throws(
      () =>
        toFunctionResponseContent([
          { id: 'a', name: 'x', result: all.succeeded.execution.modelResult },
          { id: 'a', name: 'x', result: all.succeeded.execution.modelResult },
        ]),
      (error: unknown) => (error as { code?: unknown }).code === 'DUPLICATE_CALL_ID',
    );
  });
});

describe('Gemini Interactions (seed 001: function_result + name + call_id + result)', () => {
  it('is a function_result step typed by the SDK: one text block that is the rendered result, is_error as everywhere', () => {
    each(({ status, execution }) => {
      const step: Interactions.FunctionResultStep = toFunctionResult({
        id: 'call_7',
        name: 'orders__get',
        result: execution.modelResult,
      });
      assert.deepEqual(step, {
        type: 'function_result',
        call_id: 'call_7',
        name: 'orders__get',
        result: [{ type: 'text', text: renderModelResult(execution.modelResult).text }],
        is_error: EXPECTED_ERROR_FLAG[status],
      });
    });
  });

  it('answers a turn in one input, continuing the stored interaction when given, and refuses duplicate call ids', () => {
    const input = toInteractionInput(
      [
        { id: 'a', name: 'orders__get', result: all.succeeded.execution.modelResult },
        { id: 'b', name: 'payments__refund', result: all.unknown.execution.modelResult },
      ],
      'int_123',
    );
    assert.equal(input.previous_interaction_id, 'int_123');
    assert.deepEqual(
      input.input.map((step) => [step.call_id, step.is_error]),
      [
        ['a', EXPECTED_ERROR_FLAG.succeeded],
        ['b', EXPECTED_ERROR_FLAG.unknown],
      ],
    );
    assert.equal('previous_interaction_id' in toInteractionInput([]), false, 'stateless: the caller sends the history');
    assert.throws(
      () =>
        toInteractionInput([
          { id: 'a', name: 'x', result: all.succeeded.execution.modelResult },
          { id: 'a', name: 'x', result: all.succeeded.execution.modelResult },
        ]),
      (error: unknown) => (error as { code?: unknown }).code === 'DUPLICATE_CALL_ID',
    );
  });
});

describe('MCP CallToolResult', () => {
  it('has one text block that is exactly the JSON of structuredContent, and isError per status', () => {
    each(({ status, execution }) => {
      const result: CallToolResult = toCallToolResult(execution.modelResult);
      const { value, text } = renderModelResult(execution.modelResult);
      assert.deepEqual(result, {
        content: [{ type: 'text', text }],
        structuredContent: value,
        isError: EXPECTED_ERROR_FLAG[status],
      });
      const [block] = result.content;
      assert.equal(block?.type, 'text');
      assert.deepEqual(JSON.parse(block?.type === 'text' ? block.text : 'null'), result.structuredContent);
      assert.deepEqual(CallToolResultSchema.parse(result), result);
    });
  });

  it('validates against the official CallToolResult schema of every revision (resultType from 2026-07-28)', () => {
    each(({ execution }) => {
      for (const revision of MCP_REVISIONS)
        assertOfficial(
          revision,
          'CallToolResult',
          toCallToolResult(execution.modelResult, { protocolVersion: revision }),
        );
    });
    const withoutResultType = toCallToolResult(all.succeeded.execution.modelResult);
    assert.equal('resultType' in withoutResultType, false);
    assert.throws(() => assertOfficial('2026-07-28', 'CallToolResult', withoutResultType));
  });
});

describe('no adapter output carries anything from the audit', () => {
  it('idempotency key, operation id, internal call id, tenant, subject, digests and audit ids never appear', () => {
    const ctx = testContext();
    each(({ name, execution }) => {
      const { audit, modelResult } = execution;
      const outputs = JSON.stringify([
        toResponsesOutput('call_x', modelResult),
        toChatToolMessage('call_x', modelResult),
        toToolResultBlock('call_x', modelResult),
        toFunctionResponse({ id: 'call_x', name: 'tool_x', result: modelResult }),
        toCallToolResult(modelResult),
      ]);
      const secrets = [
        ctx.idempotencyKey,
        ctx.operationId,
        ctx.callId,
        ctx.principal.tenant,
        ctx.principal.subject,
        ctx.provider.responseId ?? 'resp_123',
        audit.audit_id,
        audit.principal_ref,
        audit.bindings.request_sha256,
        audit.bindings.result_sha256,
        audit.bindings.call_binding_sha256,
      ];
      for (const secret of secrets) assert.equal(outputs.includes(secret), false, `${name}: '${secret}' leaked`);
      for (const key of [
        'idempotency_key',
        'operation_id',
        'principal_ref',
        'bindings',
        'validation',
        'audit_id',
        'raw_response_sha256',
      ]) {
        assert.equal(outputs.includes(`"${key}"`), false, `${name}: audit field ${key} leaked`);
      }
    });
  });

  it('an audit record smuggled into a model result is refused, not serialized', () => {
    const { modelResult, audit } = all.succeeded.execution;
    const smuggled = { ...modelResult, audit } as ModelResult;
    for (const adapt of [
      () => toResponsesOutput('c', smuggled),
      () => toChatToolMessage('c', smuggled),
      () => toToolResultBlock('c', smuggled),
      () => toFunctionResponse({ id: 'c', name: 'n', result: smuggled }),
      () => toCallToolResult(smuggled),
    ]) {
      assert.throws(adapt, (error: unknown) => (error as { code?: unknown }).code === 'INVALID_MODEL_RESULT');
    }
    const nested = {
      ...modelResult,
      execution: { ...modelResult.execution, idempotency_key: 'idem-wf-42-call-0001' },
    } as ModelResult;
    assert.throws(
      () => toChatToolMessage('c', nested),
      (error: unknown) => (error as { code?: unknown }).code === 'INVALID_MODEL_RESULT',
    );
  });
});
