// Module state is per workflow execution in the TypeScript SDK's sandbox (see call-ids.ts), and calls are admitted
// in workflow-code order, so the counts are the same on every replay.
const admitted = new Map<string, number>();

/**
 * Calls of each tool this workflow run has admitted, including those a continued run inherited: carry it to the
 * next run with {@link resumeToolCallCounts} when a workflow continues as new, or the limits start over.
 */
export function toolCallCounts(): Record<string, number> {
  return Object.fromEntries(admitted);
}

/** Starts a continued run with the counts its predecessor reached (see {@link toolCallCounts}). */
export function resumeToolCallCounts(counts: Readonly<Record<string, number>>): void {
  for (const [tool, count] of Object.entries(counts)) {
    if (Number.isSafeInteger(count) && count > 0) admitted.set(tool, Math.max(admitted.get(tool) ?? 0, count));
  }
}

/** Calls of `tool` admitted so far in this workflow (across the runs carried over). */
export function callsMade(tool: string): number {
  return admitted.get(tool) ?? 0;
}

/** Counts one more admitted call of `tool` (every admitted call counts, limited or not: a later call may set one). */
export function countCall(tool: string): void {
  admitted.set(tool, callsMade(tool) + 1);
}

/** Takes back one admitted call of `tool` that never ran (an expected read its preparation admits again). */
export function withdrawCall(tool: string): void {
  const made = callsMade(tool);
  if (made > 1) admitted.set(tool, made - 1);
  else admitted.delete(tool);
}
