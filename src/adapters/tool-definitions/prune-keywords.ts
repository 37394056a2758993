import { mapSchema, type JsonSchemaObject } from './schema-walk.js';

/** Keywords that only annotate; dropping them silently loses nothing the tool relies on. */
const SILENT = new Set(['$schema', '$comment', 'title', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * Keeps only the keywords a provider dialect accepts. A dropped constraint (a `maxLength`, a `default`) is named in
 * the node's description so the model still learns it; the tool's own input validation still enforces it, so a
 * call that ignores it gets `INVALID_ARGUMENTS`, never a silently accepted value. Dropped `examples` are moved into
 * the description too (seed 003: examples show conventions a schema cannot, such as units).
 */
export function pruneKeywords(
  schema: JsonSchemaObject,
  supported: ReadonlySet<string>,
  supportedFormats?: ReadonlySet<string>,
): JsonSchemaObject {
  return mapSchema(schema, (node) => {
    const kept: JsonSchemaObject = {};
    const dropped: string[] = [];
    const notes: string[] = [];
    for (const [keyword, value] of Object.entries(node)) {
      const formatUnsupported =
        keyword === 'format' && supportedFormats !== undefined && !supportedFormats.has(String(value));
      if (supported.has(keyword) && !formatUnsupported) kept[keyword] = value;
      else if (keyword === 'examples') notes.push(`(examples: ${JSON.stringify(value).slice(0, 200)})`);
      else if (!SILENT.has(keyword)) dropped.push(`${keyword}=${JSON.stringify(value).slice(0, 200)}`);
    }
    if (dropped.length > 0) notes.unshift(`(checked by the tool: ${dropped.join(', ')})`);
    if (notes.length > 0) {
      const note = notes.join(' ');
      kept['description'] = typeof kept['description'] === 'string' ? `${kept['description']} ${note}` : note;
    }
    return kept;
  });
}
