import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type {
  createConfirmMemory,
  createProposeMemory,
  MemoryOutcome,
  MemoryRecord,
  ProposeMemoryInput,
  WorkflowMemoryConfirmation,
} from '../activities/memory.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { digestJson } from '../src/contract/sha256.js';
import { CONFIRM_MEMORY_ACTIVITY, PROPOSE_MEMORY_ACTIVITY } from '../src/wire/names.js';
import { catalogWorkflowFailure } from './catalog-failure.js';

export type {
  MemoryOutcome,
  MemoryRecord,
  ProposeMemoryInput,
  WorkflowMemoryConfirmation,
} from '../activities/memory.js';

/**
 * A proposal from workflow code. The memory id defaults to a digest of the workflow and what is proposed (never of
 * the principal, whose reference only the worker computes), so a replay or a retry proposes the same memory.
 */
export type MemoryProposalInput = Omit<ProposeMemoryInput, 'memoryId'> & { readonly memoryId?: string };

type Activities = {
  [PROPOSE_MEMORY_ACTIVITY]: ReturnType<typeof createProposeMemory>;
  [CONFIRM_MEMORY_ACTIVITY]: ReturnType<typeof createConfirmMemory>;
};

const activities = () =>
  proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 10, nonRetryableErrorTypes: nonRetryableCodes() },
  });

/**
 * Offers a fact for long-term memory (seed 000 §17): the store's write policy decides. An explicit statement or a
 * user-confirmed fact is written; a `confirmed_fact` must cite evidence this workflow's calls returned and is only
 * written when some of it is trusted (else it stays a candidate); a model inference is refused unless the policy
 * allows it; external content is kept as a candidate. Idempotent by memory id.
 */
export async function proposeMemory(input: MemoryProposalInput): Promise<MemoryOutcome> {
  if (input.kind === 'confirmed_fact' && input.evidenceIds.length === 0)
    throw catalogWorkflowFailure('INVALID_ARGUMENTS', 'a confirmed fact must cite evidence');
  const memoryId =
    input.memoryId ??
    `mem_${digestJson({ workflowId: workflowInfo().workflowId, kind: input.kind, fact: input.fact, evidenceIds: input.evidenceIds }).slice(0, 32)}`;
  return activities()[PROPOSE_MEMORY_ACTIVITY]({ ...input, memoryId });
}

/**
 * Records that a person confirmed a candidate this workflow proposed (from a signal or an update the workflow
 * handled): it becomes memory. Another workflow's candidate is `NOT_FOUND`.
 */
export async function confirmMemory(input: WorkflowMemoryConfirmation): Promise<MemoryRecord> {
  return activities()[CONFIRM_MEMORY_ACTIVITY](input);
}
