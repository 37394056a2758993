/**
 * `value` as JSON reads it: members whose value is `undefined` left out, at any depth (JSON text cannot hold them,
 * so the shape gate passes over them and canonical JSON omits them). Branches without one are returned as they are;
 * only the objects and arrays on the way to one are copied. Call it only on a value the shape gate accepted: no
 * cycle, bounded depth, plain objects and arrays, no key that reaches a prototype.
 */
export function withoutUndefinedMembers(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (const [index, item] of value.entries()) {
      const kept = withoutUndefinedMembers(item);
      if (kept !== item) (copy ??= [...(value as unknown[])])[index] = kept;
    }
    return copy ?? value;
  }
  let changed = false;
  const members: [string, unknown][] = [];
  for (const [name, member] of Object.entries(value)) {
    if (member === undefined) {
      changed = true;
      continue;
    }
    const kept = withoutUndefinedMembers(member);
    changed ||= kept !== member;
    members.push([name, kept]);
  }
  return changed ? Object.fromEntries(members) : value;
}
