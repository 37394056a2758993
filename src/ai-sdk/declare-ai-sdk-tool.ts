// (b) of the AI SDK bridge, what a tool is: an existing AI SDK tool's schema and description, plus the fields the
// contract needs that the AI SDK has no word for (effect, source, business key, approval, output schema). Sandbox-safe
// like declareTool: workflow code declares the same tool to call it by declaration.
import type { FlexibleSchema } from 'ai';
import { z } from 'zod';
import { declareTool, ToolDefinitionError } from '../contract/declare-tool.js';
import type { ToolDeclaration, ToolDeclarationSpec } from '../contract/tool-spec.js';

/** What {@link declareAiSdkTool} reads of an AI SDK tool: its input schema (a zod schema) and its description. */
export interface AiSdkToolShape<Input> {
  readonly description?: unknown;
  readonly inputSchema: FlexibleSchema<Input>;
}

/**
 * The declared fields an AI SDK tool lacks: everything of `declareTool` but its input schema. `description` defaults
 * to the tool's own (when it is a string).
 */
export type AiSdkToolFields<Input, Out extends z.ZodType> = Omit<
  ToolDeclarationSpec<z.ZodType<Input>, Out>,
  'input' | 'description'
> & {
  readonly description?: string;
};

/**
 * The declaration of an existing AI SDK tool (`tool({ description, inputSchema, execute })`) with `fields` added:
 * `declareTool` with the tool's input schema, which must be a zod schema (the contract re-validates arguments with it
 * on the worker). Declaring the same tool with the same fields on both sides gives the same revision.
 */
export function declareAiSdkTool<Input, Out extends z.ZodType>(
  aiTool: AiSdkToolShape<Input>,
  fields: AiSdkToolFields<Input, Out>,
): ToolDeclaration<z.ZodType<Input>, Out> {
  const input: unknown = aiTool.inputSchema;
  if (!(input instanceof z.ZodType))
    throw new ToolDefinitionError(
      `tool '${fields.name}': the AI SDK tool's inputSchema must be a zod schema (jsonSchema() and other Standard Schemas cannot be re-validated on the worker)`,
    );
  const description = fields.description ?? aiTool.description;
  if (typeof description !== 'string')
    throw new ToolDefinitionError(`tool '${fields.name}': give a description (the AI SDK tool's is not a string)`);
  return declareTool({ ...fields, description, input: input as z.ZodType<Input> });
}
