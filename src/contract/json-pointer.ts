import { escapePointerToken } from './canonical-json.js';

/** Splits an RFC 6901 JSON Pointer into unescaped tokens; `null` when it is not a valid pointer. */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/') || /~[^01]|~$/.test(pointer)) return null;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Joins tokens into a JSON Pointer. */
export function formatPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((token) => `/${escapePointerToken(String(token))}`).join('');
}

/**
 * Resolves `pointer` in `document`. Only own properties count, and array indexes must be canonical decimal
 * numbers, so `/__proto__` or `/items/01` never resolve to something the data does not hold.
 */
export function resolvePointer(document: unknown, pointer: string): { found: true; value: unknown } | { found: false } {
  const tokens = parsePointer(pointer);
  if (tokens === null) return { found: false };
  let current: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= current.length) return { found: false };
      current = current[Number(token)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

/**
 * `document` with the value at `tokens` replaced by `value`, copied along that path only (the rest is shared, and
 * `document` itself is not changed). A path that does not exist leaves the document as it is.
 */
export function withValueAt(document: unknown, tokens: readonly (string | number)[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const [head, ...rest] = tokens as [string | number, ...(string | number)[]];
  if (Array.isArray(document)) {
    const index = Number(head);
    return (document as unknown[]).map((item, i) => (i === index ? withValueAt(item, rest, value) : item));
  }
  if (document === null || typeof document !== 'object' || !Object.hasOwn(document, String(head))) return document;
  return {
    ...(document as Record<string, unknown>),
    [String(head)]: withValueAt((document as Record<string, unknown>)[String(head)], rest, value),
  };
}
