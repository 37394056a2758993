import fc from 'fast-check';

/** A JSON value as the property tests build it (no `undefined`, no non-finite numbers, well-formed strings). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One step into a JSON document: an object key or an array index. */
export type Step = string | number;

/**
 * Arbitrary JSON documents with full-Unicode strings and keys ('binary' units are whole code points, so no lone
 * surrogates), kept shallow so runs stay fast.
 */
export const jsonValue: fc.Arbitrary<Json> = fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }) as fc.Arbitrary<Json>;

/** Arbitrary JSON objects with at least one key (so there is something to remove). */
export const jsonObject: fc.Arbitrary<{ [key: string]: Json }> = fc.dictionary(
  fc.string({ unit: 'binary', maxLength: 8 }),
  jsonValue,
  {
    minKeys: 1,
    maxKeys: 6,
  },
);

/** Deep copy through JSON text: what a reader of the canonical form would get back. */
export function cloneJson(value: Json): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/**
 * Sets an own data property. Plain assignment would be wrong for a key named `__proto__` (it would replace the
 * prototype instead of adding a member), and JSON documents may well carry such keys.
 */
export function defineMember(target: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every node of `value` with its path, root first. */
export function nodesOf(value: Json, path: Step[] = []): { path: Step[]; value: Json }[] {
  const here = [{ path, value }];
  if (Array.isArray(value)) return here.concat(value.flatMap((item, i) => nodesOf(item, [...path, i])));
  if (value !== null && typeof value === 'object')
    return here.concat(Object.keys(value).flatMap((key) => nodesOf(value[key]!, [...path, key])));
  return here;
}

/** Leaves: primitives and empty containers. */
export function isLeaf(value: Json): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0;
  return true;
}

/** Returns a copy of `root` with the node at `path` replaced by `replacement` (the root itself for an empty path). */
export function replaceAt(root: Json, path: readonly Step[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const copy = cloneJson(root);
  const parent = nodeAt(copy, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof last === 'number') parent[last] = replacement;
  else if (parent !== null && typeof parent === 'object' && !Array.isArray(parent) && typeof last === 'string')
    defineMember(parent, last, replacement);
  else throw new Error(`replaceAt: no container at ${JSON.stringify(path)}`);
  return copy;
}

/** The node at `path`. */
export function nodeAt(root: Json, path: readonly Step[]): Json {
  let current: Json = root;
  for (const step of path) {
    if (Array.isArray(current) && typeof step === 'number') current = current[step]!;
    else if (current !== null && typeof current === 'object' && !Array.isArray(current) && typeof step === 'string')
      current = current[step]!;
    else throw new Error(`nodeAt: no step ${String(step)}`);
  }
  return current;
}

/**
 * Rebuilds `value` with every object's keys inserted in a different order, chosen by `seed` (a small LCG, so a
 * failing case replays from its seed).
 */
export function shuffleKeys(value: Json, seed: number): Json {
  let state = seed >>> 0 || 1;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const visit = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    const out: { [key: string]: Json } = {};
    for (const key of keys) defineMember(out, key, visit(node[key]!));
    return out;
  };
  return visit(value);
}
