import { Context } from '@temporalio/activity';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import type { ToolRegistry } from '../src/contract/tool-registry.js';
import { ToolError } from '../src/contract/tool-error.js';
import { toChatTool } from '../src/adapters/tool-definitions/openai.js';
import { ScriptedModel, type ScriptedModelConfig } from '../src/model/scripted-model.js';
import type {
  JsonObject,
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelSettings,
  ModelToolCall,
  ModelToolDefinition,
} from '../src/model/model-turn.js';

// The turn format's types, re-exported for workflow code (which may import types from activities/ only).
export type {
  AssistantMessage,
  ModelMessage,
  ModelResponse,
  ModelSettings,
  ModelToolCall,
  ToolResultMessage,
} from '../src/model/model-turn.js';
export type { ScriptedModelConfig } from '../src/model/scripted-model.js';

/**
 * Which model the agent loop talks to. Plain JSON and secret-free (it is workflow input, stored in history):
 * - `scripted`: a deterministic {@link ScriptedModel} playing `script` (tool names are contract names);
 * - `named`: a client the worker registered under `name` (`ToolContractPlugin({ models })`), for example an
 *   OpenAI-compatible client whose base URL and key come from the worker's own configuration.
 */
export type AgentModelConfig =
  | { readonly kind: 'scripted'; readonly script: ScriptedModelConfig }
  | { readonly kind: 'named'; readonly name: string };

/** Input of the model-call activity: one turn's conversation, the tools the model may call, and settings. */
export interface ModelCallInput {
  readonly model: AgentModelConfig;
  readonly messages: readonly ModelMessage[];
  /** Contract names; tool definitions are built worker-side from the registry (unregistered names are skipped). */
  readonly allowedTools: readonly string[];
  readonly settings?: ModelSettings;
}

/**
 * The model-call activity. A completion has no side effect, so the activity may be retried: model clients throw
 * catalogued `ToolError`s (`UPSTREAM_UNAVAILABLE`/`RATE_LIMITED` retryable, `PROTOCOL_ERROR` and configuration
 * errors not), which the package's translator turns into failure types. Named clients see provider-safe tool names
 * (`orders.get` → `orders__get`); workflow code only ever sees contract names.
 */
export function createModelCall(
  registry: ToolRegistry,
  models: Readonly<Record<string, ModelClient>>,
): (input: ModelCallInput) => Promise<ModelResponse> {
  return async (input) => {
    const tools = input.allowedTools.filter((name) => registry.has(name)).map((name) => registry.get(name));
    const request = (toolName: (tool: AnyToolImplementation) => string): ModelRequest => ({
      messages: input.messages,
      tools: tools.map((tool) => toolDefinition(tool, toolName(tool))),
      ...(input.settings === undefined ? {} : { settings: input.settings }),
    });
    const signal = Context.current().cancellationSignal;
    if (input.model.kind === 'scripted')
      return new ScriptedModel(input.model.script).complete(
        request((tool) => tool.name),
        { signal },
      );
    const client = Object.hasOwn(models, input.model.name) ? models[input.model.name] : undefined;
    if (client === undefined)
      throw new ToolError('INVALID_ARGUMENTS', { reason: 'unknown_model', model: input.model.name.slice(0, 100) });
    const names = new ProviderNames(tools);
    const response = await client.complete(names.outgoing(request((tool) => names.wire(tool.name))), { signal });
    return names.incoming(response);
  };
}

/** A tool as the model sees it: the OpenAI dialect without strict mode, so arguments arrive exactly as the schema says. */
function toolDefinition(tool: AnyToolImplementation, name: string): ModelToolDefinition {
  const { description, parameters } = toChatTool(tool, { strict: false }).function;
  return { name, description, parameters: parameters as JsonObject };
}

/**
 * The reversible mapping between the allowed tools' contract names and provider-safe names. A name outside the
 * allowed set passes through unchanged both ways, so the workflow refuses it as `UNKNOWN_TOOL` under the name the
 * model used.
 */
class ProviderNames {
  readonly #toWire = new Map<string, string>();
  readonly #fromWire = new Map<string, string>();

  constructor(tools: readonly AnyToolImplementation[]) {
    for (const tool of tools) {
      const wire = toChatTool(tool, { strict: false }).function.name;
      this.#toWire.set(tool.name, wire);
      this.#fromWire.set(wire, tool.name);
    }
  }

  wire(name: string): string {
    return this.#toWire.get(name) ?? name;
  }

  outgoing(request: ModelRequest): ModelRequest {
    const messages = request.messages.map((message): ModelMessage => {
      if (message.role === 'assistant')
        return { ...message, calls: message.calls.map((call) => ({ ...call, name: this.wire(call.name) })) };
      if (message.role === 'tool') return { ...message, name: this.wire(message.name) };
      return message;
    });
    return { ...request, messages };
  }

  incoming(response: ModelResponse): ModelResponse {
    if (response.kind === 'final') return response;
    return {
      ...response,
      calls: response.calls.map((call): ModelToolCall => ({
        ...call,
        name: this.#fromWire.get(call.name) ?? call.name,
      })),
    };
  }
}
