// Module state is per workflow execution in the TypeScript SDK's sandbox (see call-ids.ts), and results are noted in
// workflow-code order, so the halt is the same on every replay.
import type { ToolCallResult } from '../activities/tool-activity.js';

/** What a run does with its writes once one of its results failed a business invariant. */
export type InvariantFailurePolicy = 'halt_writes' | 'continue';

let haltedBy: string | null = null;

/**
 * Seed 004: "业务不变量失败要停止副作用" — once a result of this run failed a business invariant
 * (`INVARIANT_VIOLATION`), the data the run acts on cannot be trusted, so its later writes are refused
 * (`WRITES_HALTED`, not started, `human_review`) until a person looks; reads go on. Called with every result a call
 * returns to workflow code.
 */
export function noteInvariantFailure(result: ToolCallResult, callId: string): void {
  if (haltedBy === null && result.modelResult.error?.code === 'INVARIANT_VIOLATION') haltedBy = callId;
}

/** The call whose invariant failure halted this run's writes, or `null`. Carry it over continue-as-new (see {@link resumeWriteHalt}). */
export function writesHaltedBy(): string | null {
  return haltedBy;
}

/** Starts a continued run halted as its predecessor was. */
export function resumeWriteHalt(callId: string | null | undefined): void {
  if (typeof callId === 'string' && haltedBy === null) haltedBy = callId;
}
