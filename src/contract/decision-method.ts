/**
 * Value of a decision record's `method` for a decision taken on a worker that takes them unauthenticated (development
 * only). Apart from the record's zod schema, so that workflow code reads it without building that schema: a
 * workflow's sandbox evaluates every module it imports once per workflow run.
 */
export const UNAUTHENTICATED_METHOD = 'unauthenticated';
