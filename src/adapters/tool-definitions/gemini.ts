import type { AnyToolImplementation } from '../../contract/tool-spec.js';
import { pruneKeywords } from './prune-keywords.js';
import { isSchemaObject, mapSchema, type JsonSchemaObject } from './schema-walk.js';
import { toProviderToolName } from './tool-name.js';
import { toolDescription } from './tool-description.js';
import { toolInputJsonSchema } from './tool-json-schema.js';

/** Gemini's limit on function names. */
export const GEMINI_NAME_MAX = 64;

/** The JSON Schema subset Gemini accepts in `parametersJsonSchema`. */
const GEMINI_KEYWORDS = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
]);

/** A Gemini function declaration (`FunctionDeclaration` of `@google/genai`). */
export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parametersJsonSchema: JsonSchemaObject;
}

/** `tool` as a Gemini function declaration: `const` becomes a one-value `enum`, other unsupported keywords are pruned. */
export function toGeminiFunctionDeclaration(tool: AnyToolImplementation): GeminiFunctionDeclaration {
  const withEnums = mapSchema(toolInputJsonSchema(tool), (node) => {
    if (!('const' in node)) return node;
    const { const: value, ...rest } = node;
    return isSchemaObject(value) || Array.isArray(value) ? node : { ...rest, enum: [value] };
  });
  return {
    name: toProviderToolName(tool.name, GEMINI_NAME_MAX),
    description: toolDescription(tool),
    parametersJsonSchema: pruneKeywords(withEnums, GEMINI_KEYWORDS),
  };
}
