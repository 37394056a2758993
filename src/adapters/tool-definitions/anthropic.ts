import type { AnyToolImplementation } from '../../contract/tool-spec.js';
import { omitKeywords } from './schema-walk.js';
import { toProviderToolName } from './tool-name.js';
import { toolDescription } from './tool-description.js';
import { toolInputJsonSchema } from './tool-json-schema.js';

/** Anthropic's tool name rule: `^[a-zA-Z0-9_-]{1,128}$`. */
export const ANTHROPIC_NAME_MAX = 128;

/** An Anthropic Messages tool definition (`Anthropic.Messages.Tool`). */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [keyword: string]: unknown };
}

/** `tool` as an Anthropic tool: full JSON Schema input (Anthropic accepts it), name mapped reversibly. */
export function toAnthropicTool(tool: AnyToolImplementation): AnthropicTool {
  const schema = omitKeywords(toolInputJsonSchema(tool), ['$schema']);
  return {
    name: toProviderToolName(tool.name, ANTHROPIC_NAME_MAX),
    description: toolDescription(tool),
    input_schema: { ...schema, type: 'object' },
  };
}
