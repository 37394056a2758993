import { canonicalJson, CANONICAL_JSON_MAX_DEPTH } from './canonical-json.js';
import type { InspectedJson } from './json-shape.js';

/**
 * Member lookups per value above which the native serializer is not used: it looks every gathered name up in every
 * object, so a value whose objects share few names costs about one lookup per member, and one whose objects all
 * differ costs names × objects. Measured on this package's bench cases, a lookup costs a third or less of what the
 * JavaScript serializer spends per value.
 */
const MAX_LOOKUPS_PER_VALUE = 2;

/**
 * {@link canonicalJson} of a value `inspectJson` accepted, from the facts that pass gathered: the same text,
 * byte for byte, written by the engine's `JSON.stringify` with the sorted member names as its property list.
 *
 * Why the texts are equal: with a property list, `JSON.stringify` writes each object's members in the list's order
 * (sorted by UTF-16 code units, as RFC 8785 §3.2.3 sorts) and skips the names an object lacks; the gate has
 * established everything else the canonical writer would otherwise check or refuse: plain objects and arrays only,
 * no `undefined` item, finite numbers (whose `JSON.stringify` form is ES6 Number-to-string, the form of §3.2.2.3),
 * well-formed strings (escaped as §3.2.2.2 prescribes), no cycle, no symbol key. Three guards keep the equality:
 * - no gathered name is an inherited property of `Object.prototype` other than a method (`JSON.stringify` skips a
 *   function, so an object lacking `toString` still writes nothing for it), and no prototype has a `toJSON`;
 * - nesting within the writer's own limit (deeper values get the writer, which refuses them as it always did);
 * - a bound on the lookups (see {@link MAX_LOOKUPS_PER_VALUE}); past it the writer is the faster one.
 * Each path reads every member once, as the writer does; a member whose getter answers differently from the gate's
 * read is written as read (the writer, too, writes its own read).
 */
export function canonicalJsonOfInspected(value: unknown, inspected: InspectedJson): string {
  const { names, objects } = inspected.members;
  const native =
    inspected.depth <= CANONICAL_JSON_MAX_DEPTH &&
    names.size * objects <= MAX_LOOKUPS_PER_VALUE * inspected.size.values &&
    !hasToJson(Object.prototype) &&
    !hasToJson(Array.prototype) &&
    [...names].every(writesNothingWhenAbsent);
  if (!native) return canonicalJson(value);
  // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 requires.
  return JSON.stringify(value, [...names].sort());
}

function hasToJson(prototype: object): boolean {
  return 'toJSON' in prototype;
}

/** True when `JSON.stringify` writes nothing for `name` in an object that lacks it: `Object.prototype` has no such property, or a method. */
function writesNothingWhenAbsent(name: string): boolean {
  const inherited = Object.getOwnPropertyDescriptor(Object.prototype, name);
  return inherited === undefined || typeof inherited.value === 'function';
}
