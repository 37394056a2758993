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

/** The objects of a plain JSON value and the member names they use, gathered in the same pass (see `inspected-canonical-json.ts`). */
export interface JsonMembers {
  /** Every member name of every object, once. */
  readonly names: ReadonlySet<string>;
  readonly objects: number;
  /** Members whose value is `undefined`: passed over, as JSON text leaves them out; a stricter reader may refuse them. */
  readonly undefinedValues: number;
}

/** What {@link inspectJson} learned about a value it accepted; `depth` is the deepest nesting of containers. */
export interface InspectedJson {
  readonly ok: true;
  readonly depth: number;
  readonly size: JsonSize;
  readonly members: JsonMembers;
}

/** Result of {@link inspectJson}. */
export type JsonShape = InspectedJson | { ok: false; reason: JsonShapeFailure; path: string };

/**
 * An open container of the walk: its children and which one is being visited. The stack of open containers is the
 * path to the current value, so no path is built per value; a JSON Pointer is made only for a failure.
 */
interface OpenContainer {
  readonly container: object;
  /** An object's member names (members whose value is `undefined` left out), or `null` for an array. */
  readonly keys: readonly string[] | null;
  /** An object's member values, read once when it is entered, in `keys` order; an array's items. */
  readonly children: readonly unknown[];
  /** Index of the next child to visit. */
  next: number;
  readonly depth: number;
  readonly inList: boolean;
}

/**
 * Checks, without recursion, that `value` is plain JSON no deeper than `maxDepth`: the gate every value passes
 * before any recursive code (zod, canonical JSON, redaction) touches it, so hostile nesting cannot blow the stack.
 * The same single pass measures its size and gathers its member names. Values are visited depth first, and an
 * object's member names (or an array's items) are all checked when it is entered.
 */
export function inspectJson(value: unknown, maxDepth: number): JsonShape {
  const stack: OpenContainer[] = [];
  /** The open containers past the first {@link SCANNED_ANCESTORS} (see {@link isOpen}). */
  const open = new Set<object>();
  const names = new Set<string>();
  let deepest = 0;
  let values = 0;
  let objects = 0;
  let undefinedValues = 0;
  let widestObjectOutsideLists = 0;
  const failure = (reason: JsonShapeFailure, token?: string | number): JsonShape => ({
    ok: false,
    reason,
    path: pointerOf(stack, token),
  });
  let current = value;
  let depth = 0;
  let inList = false;
  for (;;) {
    values++;
    switch (typeof current) {
      case 'string':
        if (!current.isWellFormed()) return failure('lone_surrogate');
        break;
      case 'number':
        if (!Number.isFinite(current)) return failure('non_finite_number');
        break;
      case 'boolean':
        break;
      case 'object': {
        if (current === null) break;
        if (depth + 1 > maxDepth) return failure('too_deep');
        deepest = Math.max(deepest, depth + 1);
        if (isOpen(current, stack, open)) return failure('cycle');
        if (Array.isArray(current)) {
          for (let i = current.length - 1; i >= 0; i--)
            if (current[i] === undefined) return failure('unsupported_type', i);
          stack.push({ container: current, keys: null, children: current, next: 0, depth, inList });
        } else {
          if (!isPlainObject(current)) return failure('non_plain_object');
          if (Object.getOwnPropertySymbols(current).length > 0) return failure('unsupported_type');
          const keys = Object.keys(current);
          if (!inList) widestObjectOutsideLists = Math.max(widestObjectOutsideLists, keys.length);
          const present: string[] = [];
          const children: unknown[] = [];
          for (const key of keys) {
            if (FORBIDDEN_KEYS.has(key)) return failure('forbidden_key', key);
            if (!key.isWellFormed()) return failure('lone_surrogate', key);
            names.add(key);
            const child = (current as Record<string, unknown>)[key];
            if (child === undefined) {
              undefinedValues++;
              continue;
            }
            present.push(key);
            children.push(child);
          }
          objects++;
          // Members are visited last to first, items first to last: the order whose first failure the gate has
          // always reported (recorded failures name that path).
          stack.push({
            container: current,
            keys: present.reverse(),
            children: children.reverse(),
            next: 0,
            depth,
            inList,
          });
        }
        if (stack.length > SCANNED_ANCESTORS) open.add(current);
        break;
      }
      default:
        return failure('unsupported_type');
    }
    const parent = advance(stack, open);
    if (parent === null) break;
    current = parent.children[parent.next - 1];
    depth = parent.depth + 1;
    inList = parent.keys === null || parent.inList;
  }
  return {
    ok: true,
    depth: deepest,
    size: { values, widestObjectOutsideLists },
    members: { names, objects, undefinedValues },
  };
}

/**
 * Moves to the next value to visit: the next child of the innermost container that has one left, whose `next` then
 * points past it; finished containers are closed on the way. `null` when the walk is done.
 */
function advance(stack: OpenContainer[], open: Set<object>): OpenContainer | null {
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if (top.next < top.children.length) {
      top.next++;
      return top;
    }
    if (stack.length > SCANNED_ANCESTORS) open.delete(top.container);
    stack.pop();
  }
  return null;
}

/**
 * Open containers found by looking through the stack rather than in a set: most JSON is shallow, and a set's
 * insertion and removal for every container cost more than comparing with a few ancestors. Deeper containers go in
 * the set, so a deep value costs no more per container than this many comparisons.
 */
const SCANNED_ANCESTORS = 16;

/** True when `container` is one of the open containers (its own ancestor: a cycle). */
function isOpen(container: object, stack: readonly OpenContainer[], deeper: ReadonlySet<object>): boolean {
  const scanned = Math.min(stack.length, SCANNED_ANCESTORS);
  for (let i = 0; i < scanned; i++) if (stack[i]!.container === container) return true;
  return stack.length > SCANNED_ANCESTORS && deeper.has(container);
}

/** The pointer to the value being visited (each open container's current child), and then to `token` if given. */
function pointerOf(stack: readonly OpenContainer[], token?: string | number): string {
  const tokens = stack.map(({ keys, next }) => (keys === null ? next - 1 : keys[next - 1]!));
  return formatPointer(token === undefined ? tokens : [...tokens, token]);
}
