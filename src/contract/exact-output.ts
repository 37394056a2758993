import { formatPointer } from './json-pointer.js';

/**
 * Paths of keys present in `raw` but absent from `parsed`. Zod objects strip unknown keys by default; the output
 * contract is exact, so anything the schema dropped is reported instead of silently disappearing. Both values
 * must already have passed the JSON shape gate.
 */
export function findUndeclaredKeys(raw: unknown, parsed: unknown): string[] {
  const found: string[] = [];
  collectUndeclared(raw, parsed, [], found);
  return found;
}

/** The walk behind {@link findUndeclaredKeys}: the path is a token stack, made a pointer only for a key it reports. */
function collectUndeclared(raw: unknown, parsed: unknown, tokens: (string | number)[], found: string[]): void {
  if (Array.isArray(raw) && Array.isArray(parsed)) {
    for (let i = 0; i < raw.length; i++) {
      tokens.push(i);
      collectUndeclared(raw[i], parsed[i], tokens, found);
      tokens.pop();
    }
    return;
  }
  if (!isObject(raw) || !isObject(parsed)) return;
  for (const key of Object.keys(raw)) {
    const child = raw[key];
    tokens.push(key);
    if (child !== undefined && !Object.hasOwn(parsed, key)) found.push(formatPointer(tokens));
    else collectUndeclared(child, parsed[key], tokens, found);
    tokens.pop();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
