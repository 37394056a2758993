/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * Digests in this package are only as trustworthy as the bytes they are taken over, so the serializer is strict:
 * anything JSON cannot represent exactly (NaN, ±Infinity, lone surrogates, functions, BigInt, symbols, cycles,
 * non-plain objects) is an error, never a silent coercion the way `JSON.stringify` does it.
 */

/** Why a value has no canonical JSON form. */
export type CanonicalJsonFailure =
  | 'non_finite_number'
  | 'lone_surrogate'
  | 'unsupported_type'
  | 'non_plain_object'
  | 'cycle'
  | 'too_deep';

/** Thrown by {@link canonicalJson}; `path` is a JSON Pointer to the offending value. */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
  constructor(
    readonly reason: CanonicalJsonFailure,
    readonly path: string,
  ) {
    super(`value at '${path || '/'}' has no canonical JSON form: ${reason}`);
  }
}

/** Nesting deeper than this is refused rather than risking the call stack on hostile input. */
export const CANONICAL_JSON_MAX_DEPTH = 1000;

/** Serializes `value` as RFC 8785 canonical JSON (sorted keys, ES6 number form, minimal escaping). */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, '', 0, new Set(), parts);
  return parts.join('');
}

function write(value: unknown, path: string, depth: number, open: Set<object>, out: string[]): void {
  switch (typeof value) {
    case 'string':
      out.push(quote(value, path));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError('non_finite_number', path);
      // ES6 Number-to-string is exactly the number form RFC 8785 prescribes (and prints -0 as 0).
      out.push(String(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'object':
      break;
    default:
      throw new CanonicalJsonError('unsupported_type', path);
  }
  if (value === null) {
    out.push('null');
    return;
  }
  if (depth >= CANONICAL_JSON_MAX_DEPTH) throw new CanonicalJsonError('too_deep', path);
  if (open.has(value)) throw new CanonicalJsonError('cycle', path);
  open.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const item: unknown = value[i];
      if (item === undefined) throw new CanonicalJsonError('unsupported_type', `${path}/${i}`);
      write(item, `${path}/${i}`, depth + 1, open, out);
    }
    out.push(']');
  } else {
    if (!isPlainObject(value)) throw new CanonicalJsonError('non_plain_object', path);
    // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 requires.
    const keys = Object.keys(value).sort();
    out.push('{');
    let first = true;
    for (const key of keys) {
      const child = (value as Record<string, unknown>)[key];
      // An absent optional property and an `undefined` one mean the same thing in JSON: omitted.
      if (child === undefined) continue;
      const childPath = `${path}/${escapePointerToken(key)}`;
      if (!first) out.push(',');
      first = false;
      out.push(quote(key, childPath), ':');
      write(child, childPath, depth + 1, open, out);
    }
    out.push('}');
  }
  open.delete(value);
}

function quote(text: string, path: string): string {
  if (!text.isWellFormed()) throw new CanonicalJsonError('lone_surrogate', path);
  // For well-formed strings JSON.stringify escapes exactly as RFC 8785 §3.2.2.2 requires.
  return JSON.stringify(text);
}

/** True for `{}`-style objects (prototype `Object.prototype` or `null`). */
export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Escapes one reference token of a JSON Pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
