// A tool's business key: the arguments that name one business intent ("one refund per order"), declared as data so
// that workflow code and the worker derive the same idempotency key from the same arguments, and so that a tool's
// facts can travel as plain JSON (a catalog the worker describes to a workflow). See `call-identity.ts`.
import { parsePointer } from './json-pointer.js';

/**
 * Where the business key's parts are in the arguments: top-level argument names (`'order_id'`), or JSON Pointers for
 * nested ones (`'/customer/id'`). Each part must be a string, a finite number or a boolean when the call is made.
 */
export type BusinessKeyFields = readonly string[];

/** The business key of `args`, or why it has none (a part missing or not a scalar): read from the arguments as sent. */
export function businessKeyOf(
  args: unknown,
  fields: BusinessKeyFields,
): { readonly ok: true; readonly key: string } | { readonly ok: false; readonly reason: string } {
  const parts: string[] = [];
  for (const field of fields) {
    const value = valueAt(args, field);
    if (
      typeof value === 'string'
        ? value === ''
        : typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))
    ) {
      return { ok: false, reason: `business key part '${field}' is missing, empty or not a string, number or boolean` };
    }
    // Encoded, so that no part can run into the next (`a:b` + `c` vs `a` + `b:c`); text that is not well-formed
    // (a lone surrogate) has no encoding, and no place in a key that is sent upstream and stored.
    const text = String(value);
    if (!text.isWellFormed()) return { ok: false, reason: `business key part '${field}' is not well-formed text` };
    parts.push(encodeURIComponent(text));
  }
  return { ok: true, key: parts.join(':') };
}

/** Problems with declared business key fields (empty, duplicated, or neither a name nor a JSON Pointer). */
export function businessKeyFieldProblems(fields: unknown): string[] {
  if (!Array.isArray(fields) || fields.length === 0)
    return ['businessKey must list at least one argument (a name or a JSON Pointer)'];
  const problems = fields
    .filter(
      (field) => typeof field !== 'string' || field === '' || (field.startsWith('/') && parsePointer(field) === null),
    )
    .map((field) => `businessKey part '${String(field)}' is not an argument name or a JSON Pointer`);
  if (new Set(fields).size !== fields.length) problems.push('businessKey lists a part twice');
  return problems;
}

function valueAt(args: unknown, field: string): unknown {
  const path = field.startsWith('/') ? (parsePointer(field) ?? []) : [field];
  let value: unknown = args;
  for (const step of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step))
      return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}
