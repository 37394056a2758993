/** A JSON value as the store hands it back (inputs are `unknown` and checked: they must have a canonical JSON form). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
