import type { Logger } from '@temporalio/common';
import { ToolError } from '../src/contract/tool-error.js';
import type { Lease } from '../src/store/lease.js';
import type { ToolStore } from '../src/store/tool-store.js';
import type { AttemptDeadline } from './attempt-deadline.js';

/** The fence a leased attempt's handler passes (`ctx.beforeDispatch`), and whether it ever did. */
export interface DispatchFence {
  readonly beforeDispatch: () => Promise<void>;
  /** True once the fence let a request go: the attempt may have dispatched. */
  readonly passed: () => boolean;
}

/**
 * The fence of one leased attempt. The store's check-and-mark is the authority (one statement, database clock); the
 * local checks around it refuse what is already known to be stale without asking, and catch an attempt that was
 * frozen while the store answered: its mark stays (reconciliation then waits out the deadline, which is safe), but its
 * request does not leave. A refusal is `TIMEOUT_BEFORE_EXECUTE` with the reason in the audit: the write did not start.
 */
export function dispatchFence(store: ToolStore, idempotencyKey: string, lease: Lease, deadline: AttemptDeadline): DispatchFence {
  let passed = false;
  const refuse = (reason: string): never => {
    throw new ToolError('TIMEOUT_BEFORE_EXECUTE', { reason, fence: 'dispatch_lease' });
  };
  const checkLocally = () => {
    if (deadline.signal.aborted) refuse('attempt_cancelled');
    if (Date.now() >= deadline.atMs) refuse('deadline_passed');
  };
  return {
    beforeDispatch: async () => {
      checkLocally();
      const decision = await store.fenceDispatch({ idempotencyKey, leaseToken: lease.token });
      if (!decision.allowed) refuse(`lease_${decision.reason}`);
      passed = true;
      checkLocally();
    },
    passed: () => passed,
  };
}

/**
 * Warns once per tool (per plugin instance) about a write that committed without passing the fence: it is not
 * protected against a frozen worker sending its request after reconciliation said "not committed"; such a late
 * commit is only detected, audited and escalated.
 */
export function unfencedWriteWarnings(): (tool: string, log: Logger) => void {
  const warned = new Set<string>();
  return (tool, log) => {
    if (warned.has(tool)) return;
    warned.add(tool);
    log.warn('a write committed without calling ctx.beforeDispatch(): a frozen worker could commit it behind a "not committed" answer (detected and escalated, not prevented)', { tool });
  };
}
