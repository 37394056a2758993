import { escapePointerToken } from './canonical-json.js';

/**
 * Paths of keys present in `raw` but absent from `parsed`. Zod objects strip unknown keys by default; the output
 * contract is exact, so anything the schema dropped is reported instead of silently disappearing. Both values
 * must already have passed the JSON shape gate.
 */
export function findUndeclaredKeys(raw: unknown, parsed: unknown, path = ''): string[] {
  if (Array.isArray(raw) && Array.isArray(parsed)) {
    return raw.flatMap((item, i) => findUndeclaredKeys(item, parsed[i], `${path}/${i}`));
  }
  if (!isObject(raw) || !isObject(parsed)) return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(raw)) {
    const childPath = `${path}/${escapePointerToken(key)}`;
    if (child !== undefined && !Object.hasOwn(parsed, key)) found.push(childPath);
    else found.push(...findUndeclaredKeys(child, parsed[key], childPath));
  }
  return found;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
