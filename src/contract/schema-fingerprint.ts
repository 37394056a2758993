// A schema's fingerprint: what its definition says (types, keys, checks and their parameters), as plain JSON, so that a
// changed schema is a changed tool revision. It reads the definition zod keeps on every schema (`_zod.def`, zod's
// documented surface for library authors) and never calls the schema: inside the workflow sandbox a declaration may
// live in a module shared, frozen, by every workflow (see `ToolContractPlugin` `declarationModules`), where zod's
// lazily built members cannot be created any more. Cheap where a JSON Schema export is not (measured: about 1.6 ms per
// schema per workflow when done in the sandbox).
import type { z } from 'zod';

/** Beyond these, a definition is described by a marker instead of walked: bounded work for any schema. */
const MAX_DEPTH = 64;
const MAX_NODES = 20_000;

/** The fingerprint of `schema`: JSON (canonicalizable) describing its definition. */
export function schemaFingerprint(schema: z.ZodType): unknown {
  const seen = new Map<object, number>();
  let nodes = 0;
  const walk = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'undefined') return '[undefined]';
    if (typeof value === 'function') return '[function]';
    if (typeof value === 'symbol') return String(value);
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) return '[too large]';
    if (value instanceof RegExp) return { regex: value.source, flags: value.flags };
    if (value instanceof Date) return { date: value.getTime() };
    // A recursive schema refers to itself: its second sighting is named by the order of first sightings.
    const earlier = seen.get(value);
    if (earlier !== undefined) return `[ref ${earlier}]`;
    seen.set(value, seen.size);
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const definition = (value as { _zod?: { def?: unknown } })._zod?.def;
    if (definition !== undefined) return walk(definition, depth + 1);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = walk((value as Record<string, unknown>)[key], depth + 1);
    return out;
  };
  return walk(schema, 0);
}
