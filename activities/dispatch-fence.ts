import type { Logger } from '@temporalio/common';
import { ToolError } from '../src/contract/tool-error.js';
import type { Lease } from '../src/store/lease.js';
import type { WorkerStore } from '../src/store/tool-store.js';
import type { AttemptDeadline } from './attempt-deadline.js';

/**
 * The two fences of one leased write attempt, and which of them it passed. Both are the same store check-and-mark;
 * the first one passed marks the key dispatched, so reconciliation treats the attempt as possibly sent from then on.
 */
export interface DispatchFence {
  /**
   * The package's own fence, passed immediately before the handler runs (see `behindHandlerFence`): a write whose
   * handler never started never sends, whether or not the handler calls its own fence.
   */
  readonly beforeHandler: () => Promise<void>;
  /** The handler's own fence (`ctx.beforeDispatch`), immediately before its request leaves: the tighter one. */
  readonly beforeDispatch: () => Promise<void>;
  /** True once the package's fence let the handler run: the attempt may have dispatched. */
  readonly handlerStarted: () => boolean;
  /** True once the handler's own fence let its request go. */
  readonly passed: () => boolean;
}

/**
 * The fences of one leased attempt. The store's check-and-mark is the authority (one statement, database clock); the
 * local checks around it refuse what is already known to be stale without asking, and catch an attempt that was
 * frozen (or whose store answered late) while the store answered: its mark stays (reconciliation then waits for its
 * record or out its deadline, which is safe), but its handler does not run, or its request does not leave. A refusal
 * is `TIMEOUT_BEFORE_EXECUTE` with the reason and the fence in the audit: the write did not start.
 */
export function dispatchFence(
  store: WorkerStore,
  idempotencyKey: string,
  lease: Lease,
  deadline: AttemptDeadline,
): DispatchFence {
  let handlerStarted = false;
  let passed = false;
  const pass = async (point: 'before_handler' | 'before_dispatch') => {
    const refuse = (reason: string): never => {
      throw new ToolError('TIMEOUT_BEFORE_EXECUTE', { reason, fence: 'dispatch_lease', point });
    };
    const checkLocally = () => {
      if (deadline.signal.aborted) refuse('attempt_cancelled');
      if (Date.now() >= deadline.atMs) refuse('deadline_passed');
    };
    checkLocally();
    const decision = await store.fenceDispatch({ idempotencyKey, leaseToken: lease.token });
    if (!decision.allowed) refuse(`lease_${decision.reason}`);
    checkLocally();
  };
  return {
    beforeHandler: async () => {
      await pass('before_handler');
      handlerStarted = true;
    },
    beforeDispatch: async () => {
      await pass('before_dispatch');
      passed = true;
    },
    handlerStarted: () => handlerStarted,
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
    log.warn(
      'a write committed without calling ctx.beforeDispatch(): a frozen worker could commit it behind a "not committed" answer (detected and escalated, not prevented)',
      { tool },
    );
  };
}
