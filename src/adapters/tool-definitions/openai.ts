import type { AnyToolImplementation } from '../../contract/tool-spec.js';
import { toStrictJsonSchema } from './strict-schema.js';
import { omitKeywords, type JsonSchemaObject } from './schema-walk.js';
import { toProviderToolName } from './tool-name.js';
import { toolDescription } from './tool-description.js';
import { toolInputJsonSchema } from './tool-json-schema.js';

/** OpenAI's limit on function names. */
export const OPENAI_NAME_MAX = 64;

/** Options of the OpenAI tool exports. */
export interface OpenAIToolOptions {
  /** Strict mode (Structured Outputs for arguments); default `true`. */
  readonly strict?: boolean;
}

/** A Responses API function tool (`OpenAI.Responses.FunctionTool`). */
export interface ResponsesFunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchemaObject;
  readonly strict: boolean;
}

/** A Chat Completions function tool (`ChatCompletionFunctionTool`). */
export interface ChatFunctionTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchemaObject;
    readonly strict: boolean;
  };
}

function parameters(tool: AnyToolImplementation, strict: boolean): JsonSchemaObject {
  const schema = toolInputJsonSchema(tool);
  if (strict) return toStrictJsonSchema(schema);
  return omitKeywords(schema, ['$schema']);
}

/** `tool` as a Responses API function tool; the name is mapped with `toProviderToolName`. */
export function toResponsesTool(tool: AnyToolImplementation, options: OpenAIToolOptions = {}): ResponsesFunctionTool {
  const strict = options.strict ?? true;
  return {
    type: 'function',
    name: toProviderToolName(tool.name, OPENAI_NAME_MAX),
    description: toolDescription(tool),
    parameters: parameters(tool, strict),
    strict,
  };
}

/** `tool` as a Chat Completions function tool; the name is mapped with `toProviderToolName`. */
export function toChatTool(tool: AnyToolImplementation, options: OpenAIToolOptions = {}): ChatFunctionTool {
  const strict = options.strict ?? true;
  return {
    type: 'function',
    function: {
      name: toProviderToolName(tool.name, OPENAI_NAME_MAX),
      description: toolDescription(tool),
      parameters: parameters(tool, strict),
      strict,
    },
  };
}
