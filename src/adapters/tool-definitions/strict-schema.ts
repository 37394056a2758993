import type { AnyToolImplementation } from '../../contract/tool-spec.js';
import { AdapterError } from '../adapter-error.js';
import { pruneKeywords } from './prune-keywords.js';
import { isSchemaObject, mapSchema, type JsonSchemaObject } from './schema-walk.js';
import { toolInputJsonSchema } from './tool-json-schema.js';

/** Keywords OpenAI strict mode (Structured Outputs) accepts. */
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'description',
  'items',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
/** String formats OpenAI strict mode accepts. */
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/**
 * Converts an input schema to OpenAI strict mode: every object closed (`additionalProperties: false`) with every
 * property required, optional properties made nullable (the model sends `null` for "absent"; undo that with
 * {@link fromStrictArguments}), `oneOf` loosened to `anyOf`, unsupported keywords dropped (see `pruneKeywords`).
 * What the strict subset cannot express is refused (`STRICT_SCHEMA_UNSUPPORTED`) rather than exported as a schema
 * OpenAI rejects or nothing satisfies: an open-ended map (`z.record`), a value of any type (`z.unknown()`, whose
 * schema has no `type`) and a tuple (`prefixItems`, which strict mode drops, leaving `items: false`).
 */
export function toStrictJsonSchema(schema: JsonSchemaObject): JsonSchemaObject {
  const anyOfOnly = mapSchema(schema, (node, path, via) => {
    const problem = inexpressible(node, via);
    if (problem !== null)
      throw new AdapterError(
        'STRICT_SCHEMA_UNSUPPORTED',
        `${problem} at '${path || '/'}' cannot be expressed in OpenAI strict mode`,
      );
    const out: JsonSchemaObject = { ...node };
    if (Array.isArray(out['oneOf'])) {
      out['anyOf'] = [...asList(out['anyOf']), ...asList(out['oneOf'])];
      delete out['oneOf'];
    }
    const open =
      (out['additionalProperties'] !== undefined && out['additionalProperties'] !== false) ||
      out['patternProperties'] !== undefined;
    if (isObjectSchema(out) && open && !hasProperties(out)) {
      throw new AdapterError(
        'STRICT_SCHEMA_UNSUPPORTED',
        `an open-ended map at '${path || '/'}' cannot be expressed in OpenAI strict mode`,
      );
    }
    return out;
  });
  // Pruning before closing: a dropped `default` is noted on the property, which `nullable` then keeps outermost.
  return mapSchema(pruneKeywords(anyOfOnly, STRICT_KEYWORDS, STRICT_FORMATS), (node) => {
    if (!isObjectSchema(node)) return node;
    const properties = isSchemaObject(node['properties']) ? node['properties'] : {};
    const required = new Set(asList(node['required']));
    return {
      ...node,
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, required.has(key) ? value : nullable(value)]),
      ),
      required: Object.keys(properties),
      additionalProperties: false,
    };
  });
}

/** Keywords under which a subschema describes a value the model writes (where strict mode needs a concrete type). */
const VALUE_POSITIONS = new Set(['', 'properties', 'items', 'anyOf', 'oneOf', '$defs', 'definitions']);
/** Keywords that give a node a concrete shape in strict mode; a node with none of them accepts any value. */
const SHAPE_KEYWORDS = ['type', 'anyOf', 'oneOf', '$ref', 'enum', 'const'];

/** What makes `node` inexpressible in strict mode, or `null`. Open-ended maps are checked by the caller. */
function inexpressible(node: JsonSchemaObject, via: string): string | null {
  if (Array.isArray(node['prefixItems'])) return 'a tuple';
  if (VALUE_POSITIONS.has(via) && !SHAPE_KEYWORDS.some((keyword) => keyword in node)) return 'a value of any type';
  return null;
}

function hasProperties(node: JsonSchemaObject): boolean {
  return isSchemaObject(node['properties']) && Object.keys(node['properties']).length > 0;
}

/**
 * Undoes strict mode's "optional as nullable" on arguments a model sent: a `null` for a property that is optional
 * and does not accept `null` in the tool's own input schema is removed (so defaults apply). Everything else is
 * passed through unchanged for the tool's input validation to judge; keys are copied as own properties, so a
 * hostile `__proto__` key still reaches that validation instead of becoming a prototype.
 */
export function fromStrictArguments(tool: AnyToolImplementation, args: unknown): unknown {
  const root = toolInputJsonSchema(tool);
  const resolve = (node: unknown): unknown => {
    for (let hops = 0; isSchemaObject(node) && typeof node['$ref'] === 'string' && hops < 32; hops++)
      node = resolveRef(root, node['$ref']);
    return node;
  };
  const walk = (schemaNode: unknown, value: unknown, depth: number): unknown => {
    const schema = resolve(schemaNode);
    if (!isSchemaObject(schema) || depth > 64) return value;
    if (Array.isArray(value))
      return isSchemaObject(schema['items']) ? value.map((item) => walk(schema['items'], item, depth + 1)) : value;
    if (!isSchemaObject(value)) return value;
    const properties = schema['properties'];
    if (!isSchemaObject(properties)) {
      // A union: restore along the one object branch whose constants (a discriminator) match the value, if any.
      const branches = [...asList(schema['anyOf']), ...asList(schema['oneOf'])].filter((branch) =>
        matchesConstants(resolve(branch), value),
      );
      return branches.length === 1 ? walk(branches[0], value, depth + 1) : value;
    }
    const required = new Set(asList(schema['required']));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const propertySchema = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (item === null && propertySchema !== undefined && !required.has(key) && !acceptsNull(resolve(propertySchema)))
        continue;
      const restored = propertySchema === undefined ? item : walk(propertySchema, item, depth + 1);
      Object.defineProperty(out, key, { value: restored, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return walk(root, args, 0);
}

function isObjectSchema(node: unknown): node is JsonSchemaObject {
  if (!isSchemaObject(node)) return false;
  const type = node['type'];
  return (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    (type === undefined && isSchemaObject(node['properties']))
  );
}

/** An object branch none of whose `const` properties contradicts `value`. */
function matchesConstants(branch: unknown, value: Record<string, unknown>): boolean {
  if (!isObjectSchema(branch)) return false;
  const properties = isSchemaObject(branch['properties']) ? branch['properties'] : {};
  return Object.entries(properties).every(
    ([key, property]) => !isSchemaObject(property) || !('const' in property) || property['const'] === value[key],
  );
}

function acceptsNull(node: unknown): boolean {
  if (!isSchemaObject(node)) return node === true;
  const type = node['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (node['const'] === null || (Array.isArray(node['enum']) && node['enum'].includes(null))) return true;
  return [...asList(node['anyOf']), ...asList(node['oneOf'])].some(acceptsNull);
}

function nullable(schema: unknown): unknown {
  if (acceptsNull(schema) || !isSchemaObject(schema)) return schema;
  const { description, ...rest } = schema;
  return { anyOf: [rest, { type: 'null' }], ...(typeof description === 'string' ? { description } : {}) };
}

function resolveRef(root: JsonSchemaObject, ref: string): unknown {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = match ? root[match[1]!] : undefined;
  const name = match?.[2]?.replace(/~1/g, '/').replace(/~0/g, '~');
  return isSchemaObject(defs) && name !== undefined && Object.hasOwn(defs, name) ? defs[name] : undefined;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
