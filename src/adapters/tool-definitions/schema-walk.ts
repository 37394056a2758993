/** A JSON Schema object (boolean schemas are passed through untouched). */
export type JsonSchemaObject = { [keyword: string]: unknown };

/** Keywords whose value is one subschema. */
const SINGLE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;
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
 */
export function mapSchema(schema: JsonSchemaObject, visit: SchemaVisitor, path = '', via = ''): JsonSchemaObject {
  return visit(
    mapSubschemas(schema, (child, at, keyword) => mapSchema(child, visit, `${path}${at}`, keyword)),
    path,
    via,
  );
}

/**
 * `node` with each direct subschema (in the keywords above) replaced by `map(child, pointer suffix, keyword)`; other
 * values are kept. Object.fromEntries defines own properties, so a subschema named `__proto__` stays a name, never a
 * prototype.
 */
export function mapSubschemas(
  node: JsonSchemaObject,
  map: (child: JsonSchemaObject, at: string, keyword: string) => unknown,
): JsonSchemaObject {
  const out: JsonSchemaObject = { ...node };
  const child = (value: unknown, at: string, keyword: string): unknown =>
    isSchemaObject(value) ? map(value, at, keyword) : value;
  for (const key of SINGLE) if (key in out) out[key] = child(out[key], `/${key}`, key);
  for (const key of LIST) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((item, i) => child(item, `/${key}/${i}`, key));
  }
  for (const key of MAP) {
    const named = out[key];
    if (isSchemaObject(named)) {
      out[key] = Object.fromEntries(
        Object.entries(named).map(([name, item]) => [name, child(item, `/${key}/${escapePointer(name)}`, key)]),
      );
    }
  }
  return out;
}

/** Maps one schema node; `via` is the keyword the node sits under (`''` for the root). */
export type SchemaVisitor = (node: JsonSchemaObject, path: string, via: string) => JsonSchemaObject;

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
