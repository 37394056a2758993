/**
 * A plain JSON value, as `JSON.parse` returns it: what the store hands back (state values) and what a model sends
 * (tool-call arguments). Read-only, because every holder only reads it; the store returns a fresh copy on each
 * read, so no caller needs to change one in place. A mutable value is assignable to it, never the reverse.
 */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };
