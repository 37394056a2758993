import { escapePointerToken, isPlainObject } from './canonical-json.js';

/** Why a value is not plain, safe JSON. */
export type JsonShapeFailure =
  | 'too_deep'
  | 'cycle'
  | 'non_finite_number'
  | 'unsupported_type'
  | 'non_plain_object'
  | 'lone_surrogate'
  | 'forbidden_key';

/** Keys that can reach an object's prototype when a consumer copies data naively. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** How big a plain JSON value is, measured in the same pass that checked it (for the raw size gate). */
export interface JsonSize {
  /** Every value: objects, arrays, strings, numbers, booleans and nulls, the root included. */
  readonly values: number;
  /** Members of the widest object that is not inside an array: no list cut can remove such an object. */
  readonly widestObjectOutsideLists: number;
}

/** Result of {@link inspectJson}. */
export type JsonShape = { ok: true; depth: number; size: JsonSize } | { ok: false; reason: JsonShapeFailure; path: string };

/**
 * Checks, without recursion, that `value` is plain JSON no deeper than `maxDepth`: the gate every value passes
 * before any recursive code (zod, canonical JSON, redaction) touches it, so hostile nesting cannot blow the stack.
 * The same single pass measures its size.
 */
export function inspectJson(value: unknown, maxDepth: number): JsonShape {
  // Each frame is a value to visit, or an `exit` marker that closes a container (for cycle detection).
  const stack: { value: unknown; path: string; depth: number; inList: boolean; exit?: object }[] = [{ value, path: '', depth: 0, inList: false }];
  const open = new Set<object>();
  let deepest = 0;
  let values = 0;
  let widestObjectOutsideLists = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.exit) {
      open.delete(frame.exit);
      continue;
    }
    const { value: current, path, depth, inList } = frame;
    values++;
    switch (typeof current) {
      case 'string':
        if (!current.isWellFormed()) return { ok: false, reason: 'lone_surrogate', path };
        continue;
      case 'number':
        if (!Number.isFinite(current)) return { ok: false, reason: 'non_finite_number', path };
        continue;
      case 'boolean':
        continue;
      case 'object':
        if (current === null) continue;
        break;
      default:
        return { ok: false, reason: 'unsupported_type', path };
    }
    if (depth + 1 > maxDepth) return { ok: false, reason: 'too_deep', path };
    deepest = Math.max(deepest, depth + 1);
    if (open.has(current)) return { ok: false, reason: 'cycle', path };
    open.add(current);
    stack.push({ value: undefined, path, depth, inList, exit: current });
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        const item: unknown = current[i];
        if (item === undefined) return { ok: false, reason: 'unsupported_type', path: `${path}/${i}` };
        stack.push({ value: item, path: `${path}/${i}`, depth: depth + 1, inList: true });
      }
      continue;
    }
    if (!isPlainObject(current)) return { ok: false, reason: 'non_plain_object', path };
    if (Object.getOwnPropertySymbols(current).length > 0) return { ok: false, reason: 'unsupported_type', path };
    const keys = Object.keys(current);
    if (!inList) widestObjectOutsideLists = Math.max(widestObjectOutsideLists, keys.length);
    for (const key of keys) {
      const childPath = `${path}/${escapePointerToken(key)}`;
      if (FORBIDDEN_KEYS.has(key)) return { ok: false, reason: 'forbidden_key', path: childPath };
      if (!key.isWellFormed()) return { ok: false, reason: 'lone_surrogate', path: childPath };
      const child = (current as Record<string, unknown>)[key];
      if (child !== undefined) stack.push({ value: child, path: childPath, depth: depth + 1, inList });
    }
  }
  return { ok: true, depth: deepest, size: { values, widestObjectOutsideLists } };
}
