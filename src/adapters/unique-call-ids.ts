import { AdapterError } from './adapter-error.js';

/** Refuses a batch that answers one provider call twice: providers reject it, and it hides a correlation bug. */
export function assertUniqueCallIds(ids: Iterable<string>): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new AdapterError('DUPLICATE_CALL_ID', `call id '${id.slice(0, 100)}' is answered twice`);
    seen.add(id);
  }
}
