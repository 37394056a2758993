// (a) of the AI SDK bridge: tool declarations become an AI SDK `ToolSet` whose every `execute` is a contract call, for
// `generateText` / agents that run inside a Temporal workflow (with `@temporalio/ai-sdk`'s `temporalProvider` models).
import { jsonSchema, type JSONSchema7, type Tool, type ToolExecutionOptions } from 'ai';
import { z } from 'zod';
import { renderModelResult } from '../adapters/render-model-result.js';
import { toolDescription } from '../adapters/tool-definitions/tool-description.js';
import { toProviderToolName } from '../adapters/tool-definitions/tool-name.js';
import type { ProviderContext } from '../contract/bindings.js';
import type { ModelResult } from '../contract/model-result.js';
import type { AnyToolDeclaration } from '../contract/tool-spec.js';
import { AI_SDK_CALL_PROVIDER } from '../wire/call-providers.js';
import { callWithRecovery, type CallToolOptions } from '../../workflows/call/call-tool.js';
import { serialLane } from '../../workflows/serial-lane.js';

/** The longest tool name OpenAI, Anthropic and Gemini all accept (an AI SDK tool set's keys are sent as they are). */
const AI_SDK_NAME_MAX = 64;

/** Options of {@link contractToolSet}: those of `callTool` for every call, but what each call binds to itself. */
export interface ContractToolSetOptions extends Omit<CallToolOptions, 'callId' | 'provider' | 'catalog'> {
  /** The model provider recorded in each call's audit binding (e.g. `openai`). @default 'ai-sdk' */
  readonly provider?: string;
}

/** A contract tool as the AI SDK sees it: arguments checked by the worker, the model result as its output. */
export type ContractAiTool = Tool<unknown, ModelResult>;

/**
 * The AI SDK tools of `catalog`, keyed by provider-safe names (`payments.refund` → `payments__refund`). Each
 * `execute` runs the call through the contract — approval, dispatch, reconciliation, audit — and returns its model
 * result; the model reads it rendered as every provider adapter renders it (untrusted text fenced). Arguments are
 * not checked by the AI SDK: the worker checks them, so bad arguments come back as a catalogued `INVALID_ARGUMENTS`
 * result the model can act on, and are audited. Writes run one at a time in the order the model asked for them,
 * reads beside them. Call it in workflow code: `execute` is `callTool`.
 */
export function contractToolSet(
  catalog: readonly AnyToolDeclaration[],
  options: ContractToolSetOptions,
): Record<string, ContractAiTool> {
  const { provider = 'ai-sdk', ...callOptions } = options;
  const writeLane = serialLane();
  const tools: Record<string, ContractAiTool> = {};
  for (const declaration of catalog) {
    const execute = (args: unknown, { toolCallId }: ToolExecutionOptions<unknown>): Promise<ModelResult> => {
      const binding: ProviderContext = {
        provider,
        apiFamily: AI_SDK_CALL_PROVIDER.apiFamily,
        responseId: null,
        providerCallId: toolCallId,
        adapterRevision: AI_SDK_CALL_PROVIDER.adapterRevision,
      };
      const call = async () =>
        (
          await callWithRecovery(
            { name: declaration.name, facts: declaration.facts },
            args,
            { ...callOptions, catalog, provider: binding },
            { writeLane },
          )
        ).modelResult;
      return declaration.effect === 'read' ? call() : writeLane(call);
    };
    tools[toProviderToolName(declaration.name, AI_SDK_NAME_MAX)] = {
      description: toolDescription(declaration),
      inputSchema: jsonSchema(inputJsonSchema(declaration), { validate: (value) => ({ success: true, value }) }),
      execute,
      // Rendered here, where the model reads it: the output itself stays the model result workflow code inspects.
      toModelOutput: ({ output }) => ({ type: 'text', value: renderModelResult(output).text }),
    };
  }
  return tools;
}

/**
 * What the model is told a tool takes (draft 7, as the AI SDK's own zod conversion gives it); shown, never enforced
 * here (see {@link contractToolSet}). zod's JSON Schema type and the AI SDK's describe the same documents.
 */
function inputJsonSchema(declaration: AnyToolDeclaration): JSONSchema7 {
  return z.toJSONSchema(declaration.input as z.ZodType, {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'any',
  }) as JSONSchema7;
}
