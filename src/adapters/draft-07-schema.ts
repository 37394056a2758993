import { isSchemaObject, mapSubschemas, omitKeywords, type JsonSchemaObject } from './tool-definitions/schema-walk.js';

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;

/** True for a schema that declares draft-06 or draft-07 (what servers built with the official MCP SDK v1 declare). */
export function isDraft07Schema(schema: JsonSchemaObject): boolean {
  return typeof schema['$schema'] === 'string' && DRAFT_07.test(schema['$schema']);
}

/**
 * A draft-06/07 schema in 2020-12 terms, accepting exactly the same values, so that it can be checked — and closed
 * with `unevaluatedProperties`, which draft-07 lacks — like any other MCP schema. Only the keywords whose meaning
 * changed are rewritten: `items` as a list is `prefixItems` (then `additionalItems` is `items`, and is ignored
 * otherwise, as draft-07 does), `dependencies` splits into `dependentRequired` and `dependentSchemas`; `$schema` is
 * dropped. `$ref` siblings need nothing: Ajv applies them in every draft.
 */
export function draft07To2020(schema: JsonSchemaObject): JsonSchemaObject {
  return convert(omitKeywords(schema, ['$schema']));
}

function convert(node: JsonSchemaObject): JsonSchemaObject {
  const { items, additionalItems, dependencies, ...out } = node;
  if (Array.isArray(items)) {
    out['prefixItems'] = items;
    if (additionalItems !== undefined) out['items'] = additionalItems;
  } else if (items !== undefined) out['items'] = items;
  if (isSchemaObject(dependencies)) {
    const required = Object.entries(dependencies).filter(([, value]) => Array.isArray(value));
    const schemas = Object.entries(dependencies).filter(([, value]) => !Array.isArray(value));
    if (required.length > 0) out['dependentRequired'] = Object.fromEntries(required);
    if (schemas.length > 0) out['dependentSchemas'] = Object.fromEntries(schemas);
  }
  return mapSubschemas(out, (child) => convert(child));
}
