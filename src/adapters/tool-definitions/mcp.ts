import type { AnyToolImplementation, ToolEffect } from '../../contract/tool-spec.js';
import { toolDescription } from './tool-description.js';
import { toolInputJsonSchema, toolResultJsonSchema } from './tool-json-schema.js';

/** MCP tool annotations: hints for clients, derived from the tool's declared effect. */
export interface McpToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** An MCP `Tool` as listed by `tools/list`. */
export interface McpTool {
  [key: string]: unknown;
  name: string;
  description: string;
  inputSchema: { [keyword: string]: unknown; type: 'object' };
  outputSchema: { [keyword: string]: unknown; type: 'object' };
  annotations: McpToolAnnotations;
}

/**
 * Annotations from `effect`. A write is idempotent only when the tool derives a business idempotency key from its
 * arguments (then repeating a call changes nothing); with per-call keys a second call is a second effect. Open
 * world is not something a tool declares, so it stays at MCP's conservative default, `true`.
 */
export function mcpAnnotations(tool: Pick<AnyToolImplementation, 'effect' | 'businessKey'>): McpToolAnnotations {
  const effect: ToolEffect = tool.effect;
  return {
    readOnlyHint: effect === 'read',
    destructiveHint: effect === 'destructive',
    idempotentHint: effect === 'read' || tool.businessKey !== undefined,
    openWorldHint: true,
  };
}

/**
 * `tool` as an MCP `Tool`. The name is the contract name unchanged (MCP allows dots); `outputSchema` describes the
 * whole model result the server returns as `structuredContent`, with `data` narrowed to the tool's output schema.
 */
export function toMcpTool(tool: AnyToolImplementation): McpTool {
  return {
    name: tool.name,
    description: toolDescription(tool),
    inputSchema: { ...toolInputJsonSchema(tool), type: 'object' },
    outputSchema: { ...toolResultJsonSchema(tool), type: 'object' },
    annotations: mcpAnnotations(tool),
  };
}
