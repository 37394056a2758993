/** A JSON Schema object (boolean schemas are passed through untouched). */
export type JsonSchemaObject = { [keyword: string]: unknown };

/** Keywords whose value is one subschema. */
const SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'] as const;
/** Keywords whose value is an array of subschemas. */
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;

/** `schema` without the given top-level keywords. */
export function omitKeywords(schema: JsonSchemaObject, keywords: readonly string[]): JsonSchemaObject {
  return Object.fromEntries(Object.entries(schema).filter(([keyword]) => !keywords.includes(keyword)));
}

/** True for a JSON object that can be a schema (not an array, not null). */
export function isSchemaObject(value: unknown): value is JsonSchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Rebuilds a schema bottom-up: every subschema (in the keywords above) is rebuilt first, then `visit` maps the node
 * with its children already done. The input is never mutated. `path` is a JSON Pointer to the node.
 * Object.fromEntries defines own properties, so a subschema named `__proto__` stays a name, never a prototype.
 */
export function mapSchema(schema: JsonSchemaObject, visit: SchemaVisitor, path = '', via = ''): JsonSchemaObject {
  const node: JsonSchemaObject = { ...schema };
  const child = (value: unknown, at: string, keyword: string): unknown => (isSchemaObject(value) ? mapSchema(value, visit, at, keyword) : value);
  for (const key of SINGLE) if (key in node) node[key] = child(node[key], `${path}/${key}`, key);
  for (const key of LIST) {
    const list = node[key];
    if (Array.isArray(list)) node[key] = list.map((item, i) => child(item, `${path}/${key}/${i}`, key));
  }
  for (const key of MAP) {
    const map = node[key];
    if (isSchemaObject(map)) {
      node[key] = Object.fromEntries(Object.entries(map).map(([name, item]) => [name, child(item, `${path}/${key}/${escapePointer(name)}`, key)]));
    }
  }
  return visit(node, path, via);
}

/** Maps one schema node; `via` is the keyword the node sits under (`''` for the root). */
export type SchemaVisitor = (node: JsonSchemaObject, path: string, via: string) => JsonSchemaObject;

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
