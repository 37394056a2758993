/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * Digests in this package are only as trustworthy as the bytes they are taken over, so the serializer is strict:
 * anything JSON cannot represent exactly (NaN, ±Infinity, lone surrogates, functions, BigInt, symbols, cycles,
 * non-plain objects) is an error, never a silent coercion the way `JSON.stringify` does it.
 */

/** Why a value has no canonical JSON form. */
export type CanonicalJsonFailure =
  'non_finite_number' | 'lone_surrogate' | 'unsupported_type' | 'non_plain_object' | 'cycle' | 'too_deep';

/** Thrown by {@link canonicalJson}; `path` is a JSON Pointer to the offending value. */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
  readonly reason: CanonicalJsonFailure;
  readonly path: string;

  constructor(reason: CanonicalJsonFailure, path: string) {
    super(`value at '${path || '/'}' has no canonical JSON form: ${reason}`);
    this.reason = reason;
    this.path = path;
  }
}

/** The characters RFC 8785 escapes in a well-formed string: quote, backslash and the C0 controls. */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what is matched
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** Nesting deeper than this is refused rather than risking the call stack on hostile input. */
export const CANONICAL_JSON_MAX_DEPTH = 1000;

/** Serializes `value` as RFC 8785 canonical JSON (sorted keys, ES6 number form, minimal escaping). */
export function canonicalJson(value: unknown): string {
  const writer = new CanonicalWriter();
  writer.write(value);
  return writer.out;
}

/**
 * One serialization. The path to the current value is kept as a stack of tokens and only joined into a JSON
 * Pointer when an error is thrown: building a pointer per key would cost more than the serialization itself.
 * The output grows by concatenation, which V8 keeps as a rope until it is read: cheaper than an array of a
 * million parts joined at the end.
 */
class CanonicalWriter {
  out = '';
  private readonly path: string[] = [];
  private readonly open = new Set<object>();

  write(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.out += this.quote(value);
        return;
      case 'number':
        if (!Number.isFinite(value)) this.fail('non_finite_number');
        // ES6 Number-to-string is exactly the number form RFC 8785 prescribes (and prints -0 as 0).
        this.out += String(value);
        return;
      case 'boolean':
        this.out += value ? 'true' : 'false';
        return;
      case 'object':
        break;
      default:
        this.fail('unsupported_type');
    }
    if (value === null) {
      this.out += 'null';
      return;
    }
    if (this.path.length >= CANONICAL_JSON_MAX_DEPTH) this.fail('too_deep');
    if (this.open.has(value)) this.fail('cycle');
    this.open.add(value);
    if (Array.isArray(value)) this.writeArray(value);
    else this.writeObject(value);
    this.open.delete(value);
  }

  private writeArray(value: readonly unknown[]): void {
    this.out += '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) this.out += ',';
      this.path.push(String(i));
      const item: unknown = value[i];
      if (item === undefined) this.fail('unsupported_type');
      this.write(item);
      this.path.pop();
    }
    this.out += ']';
  }

  private writeObject(value: object): void {
    if (!isPlainObject(value)) this.fail('non_plain_object');
    // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 requires.
    const keys = Object.keys(value).sort();
    this.out += '{';
    let first = true;
    for (const key of keys) {
      const child = (value as Record<string, unknown>)[key];
      // An absent optional property and an `undefined` one mean the same thing in JSON: omitted.
      if (child === undefined) continue;
      this.path.push(key);
      if (!first) this.out += ',';
      first = false;
      this.out += this.quote(key) + ':';
      this.write(child);
      this.path.pop();
    }
    this.out += '}';
  }

  private quote(text: string): string {
    if (!text.isWellFormed()) this.fail('lone_surrogate');
    // For well-formed strings JSON.stringify escapes exactly as RFC 8785 §3.2.2.2 requires; most strings need no
    // escape at all, and testing for one is cheaper than the call.
    return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
  }

  private fail(reason: CanonicalJsonFailure): never {
    throw new CanonicalJsonError(reason, this.path.map((token) => `/${escapePointerToken(token)}`).join(''));
  }
}

/** True for `{}`-style objects (prototype `Object.prototype` or `null`). */
export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Escapes one reference token of a JSON Pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  // Almost no key needs escaping; skipping the two replacements matters where a path is built per key.
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
