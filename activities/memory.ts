import { principalRef } from '../src/contract/principal-ref.js';
import type { Principal } from '../src/contract/tool-handler.js';
import type { MemoryConfirmation, MemoryOutcome, MemoryProposal, MemoryRecord } from '../src/store/memory.js';
import { activityWorkflow } from './call-context.js';
import type { ToolRuntime } from './runtime.js';

export type { MemoryOutcome, MemoryRecord } from '../src/store/memory.js';

/**
 * A memory proposal as workflow code makes it: whose memory (the trusted principal, turned into an irreversible
 * reference here, on the worker, keyed like the audit's `principal_ref`) and what, citing evidence returned to this
 * workflow. The workflow is the activity's own, never one named by the caller.
 */
export interface ProposeMemoryInput extends Omit<MemoryProposal, 'subjectRef' | 'workflowId'> {
  readonly principal: Principal;
}

/** Applies the store's memory write policy to a proposal from workflow code; idempotent by memory id. */
export function createProposeMemory(runtime: ToolRuntime): (input: ProposeMemoryInput) => Promise<MemoryOutcome> {
  return ({ principal, ...proposal }) =>
    runtime.store.proposeMemory({
      ...proposal,
      subjectRef: principalRef(principal, runtime.principalKey),
      workflowId: activityWorkflow().workflowId,
    });
}

/** A confirmation as workflow code makes it: of a candidate its own workflow proposed (the activity fixes which). */
export type WorkflowMemoryConfirmation = Omit<MemoryConfirmation, 'workflowId'>;

/**
 * A person confirms a candidate from workflow code (after a signal or an update, say): it becomes memory. Only a
 * candidate the workflow the activity runs for proposed: another workflow's is `memory_not_found`.
 */
export function createConfirmMemory(
  runtime: ToolRuntime,
): (input: WorkflowMemoryConfirmation) => Promise<MemoryRecord> {
  return (input) => runtime.store.confirmMemoryCandidate({ ...input, workflowId: activityWorkflow().workflowId });
}
