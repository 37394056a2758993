import type { MemoryDecision, MemoryDecisionReason, MemorySourceKind } from './memory-policy.js';

/** A fact offered for long-term memory. Idempotent by `memoryId`. */
export interface MemoryProposal {
  readonly memoryId: string;
  /** Whose memory: an irreversible principal reference (e.g. `principalRef(principal)`), never a raw identity. */
  readonly subjectRef: string;
  readonly workflowId: string;
  readonly fact: string;
  readonly kind: MemorySourceKind;
  /** Evidence ids from calls of the same workflow (required for `confirmed_fact`). */
  readonly evidenceIds: readonly string[];
  readonly observedAt: string | null;
  readonly confidence: 'high' | 'medium' | 'low' | null;
}

/** Status of a stored memory row (refused proposals are not stored). */
export type MemoryStatus = 'accepted' | 'candidate';

/** A stored memory row: the proposal as made, plus its decision and confirmation. */
export interface MemoryRecord extends MemoryProposal {
  readonly status: MemoryStatus;
  readonly reason: MemoryDecisionReason;
  readonly confirmedBy: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What happened to a proposal: its decision and, unless refused, the stored row. */
export type MemoryOutcome =
  | {
      readonly decision: Exclude<MemoryDecision, 'refused'>;
      readonly reason: MemoryDecisionReason;
      readonly memory: MemoryRecord;
    }
  | { readonly decision: 'refused'; readonly reason: MemoryDecisionReason; readonly memory: null };

/** A user confirming a candidate, which promotes it to accepted memory. */
export interface MemoryConfirmation {
  readonly memoryId: string;
  readonly confirmedBy: string;
  /**
   * When given, only a memory this workflow proposed is confirmed; another workflow's is `memory_not_found`, as if
   * absent (a confirmation from workflow code always names its own workflow: the worker sets it).
   */
  readonly workflowId?: string;
}

/** Filter for listing memory: of one subject, or proposed by one workflow (at least one of the two), or both. */
export type MemoryFilter = (
  | { readonly subjectRef: string; readonly workflowId?: string }
  | { readonly subjectRef?: string; readonly workflowId: string }
) & {
  readonly status?: MemoryStatus;
};
