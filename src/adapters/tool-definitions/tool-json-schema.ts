import { z } from 'zod';
import type { AnyToolImplementation } from '../../contract/tool-spec.js';
import { modelResultObjectSchema } from '../../contract/model-result.js';
import { AdapterError } from '../adapter-error.js';
import type { JsonSchemaObject } from './schema-walk.js';

/** Tool definitions are frozen, so a tool's schema never changes; callers get copies they may keep. */
const inputSchemas = new WeakMap<AnyToolImplementation, JsonSchemaObject>();

/**
 * The JSON Schema of what a model may send to `tool` (zod `io: 'input'`: fields with defaults are optional). Every
 * provider requires an object at the root, so anything else is refused here, once, for all dialects.
 */
export function toolInputJsonSchema(tool: AnyToolImplementation): JsonSchemaObject {
  const cached = inputSchemas.get(tool);
  if (cached) return structuredClone(cached);
  const input = tool.input as z.ZodType;
  const schema: JsonSchemaObject = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
  if (schema['type'] !== 'object') {
    throw new AdapterError(
      'INPUT_SCHEMA_NOT_OBJECT',
      `tool '${tool.name}': the input schema must describe a JSON object`,
    );
  }
  inputSchemas.set(tool, schema);
  return structuredClone(schema);
}

/**
 * The JSON Schema of the model result `tool` produces: `tool-result.model.v1` with `data` narrowed to the tool's
 * own output schema (or `null`, for failures). This is what an MCP client receives as `structuredContent`.
 */
export function toolResultJsonSchema(tool: AnyToolImplementation): JsonSchemaObject {
  const output = tool.output as z.ZodType;
  const schema: JsonSchemaObject = z.toJSONSchema(modelResultObjectSchema.extend({ data: output.nullable() }), {
    io: 'output',
    unrepresentable: 'any',
  });
  return schema;
}
