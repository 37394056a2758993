import { isPlainObject } from './canonical-json.js';
import { formatPointer } from './json-pointer.js';

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

/** Where a frame's value sits: its parent's place and its own token; made a JSON Pointer only for a failure. */
interface Place {
  readonly parent: Place | null;
  readonly token: string | number;
}

function pointerOf(place: Place | null): string {
  const tokens: (string | number)[] = [];
  for (let at = place; at !== null; at = at.parent) tokens.push(at.token);
  return formatPointer(tokens.reverse());
}

/**
 * Checks, without recursion, that `value` is plain JSON no deeper than `maxDepth`: the gate every value passes
 * before any recursive code (zod, canonical JSON, redaction) touches it, so hostile nesting cannot blow the stack.
 * The same single pass measures its size.
 */
export function inspectJson(value: unknown, maxDepth: number): JsonShape {
  // Each frame is a value to visit, or an `exit` marker that closes a container (for cycle detection).
  const stack: { value: unknown; place: Place | null; depth: number; inList: boolean; exit?: object }[] = [{ value, place: null, depth: 0, inList: false }];
  const open = new Set<object>();
  let deepest = 0;
  let values = 0;
  let widestObjectOutsideLists = 0;
  const failure = (reason: JsonShapeFailure, place: Place | null): JsonShape => ({ ok: false, reason, path: pointerOf(place) });
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.exit) {
      open.delete(frame.exit);
      continue;
    }
    const { value: current, place, depth, inList } = frame;
    values++;
    switch (typeof current) {
      case 'string':
        if (!current.isWellFormed()) return failure('lone_surrogate', place);
        continue;
      case 'number':
        if (!Number.isFinite(current)) return failure('non_finite_number', place);
        continue;
      case 'boolean':
        continue;
      case 'object':
        if (current === null) continue;
        break;
      default:
        return failure('unsupported_type', place);
    }
    if (depth + 1 > maxDepth) return failure('too_deep', place);
    deepest = Math.max(deepest, depth + 1);
    if (open.has(current)) return failure('cycle', place);
    open.add(current);
    stack.push({ value: undefined, place, depth, inList, exit: current });
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        const item: unknown = current[i];
        if (item === undefined) return failure('unsupported_type', { parent: place, token: i });
        stack.push({ value: item, place: { parent: place, token: i }, depth: depth + 1, inList: true });
      }
      continue;
    }
    if (!isPlainObject(current)) return failure('non_plain_object', place);
    if (Object.getOwnPropertySymbols(current).length > 0) return failure('unsupported_type', place);
    const keys = Object.keys(current);
    if (!inList) widestObjectOutsideLists = Math.max(widestObjectOutsideLists, keys.length);
    for (const key of keys) {
      const childPlace = { parent: place, token: key };
      if (FORBIDDEN_KEYS.has(key)) return failure('forbidden_key', childPlace);
      if (!key.isWellFormed()) return failure('lone_surrogate', childPlace);
      const child = (current as Record<string, unknown>)[key];
      if (child !== undefined) stack.push({ value: child, place: childPlace, depth: depth + 1, inList });
    }
  }
  return { ok: true, depth: deepest, size: { values, widestObjectOutsideLists } };
}
