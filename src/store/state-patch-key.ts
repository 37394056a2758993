/**
 * Where a state patch is stored: under its id within its workflow. A patch id names one write to one workflow's
 * state (state is kept per workflow), so it is the workflow's own name for that write: a retried write with the same
 * id is a replay, while another workflow using the same id — the README's `refund-<order>` patch when the refund runs
 * again for the same order — writes its own state and is its own patch, not an `IDEMPOTENCY_CONFLICT`.
 *
 * The table's key is one text column (`ttc_state_patches.patch_id`), so the pair is written into it as
 * `<length of the workflow id>:<workflow id>:<patch id>`; the length keeps two pairs from ever reading alike.
 */
export function storedPatchKey(workflowId: string, patchId: string): string {
  return `${workflowId.length}:${workflowId}:${patchId}`;
}

/** The patch id a caller gave, from the key a patch of `workflowId` is stored under (see {@link storedPatchKey}). */
export function patchIdOf(storedKey: string, workflowId: string): string {
  const prefix = storedPatchKey(workflowId, '');
  return storedKey.startsWith(prefix) ? storedKey.slice(prefix.length) : storedKey;
}
