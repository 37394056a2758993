import { AUDIT_ATTEMPT_BASE } from '../../../../activities/audit-attempt.js';
import type { ClaimInput, RecordExecutionInput } from '../../../../src/store/ledger.js';
import type { ToolStore } from '../../../../src/store/tool-store.js';

/**
 * A worker's store as a slow link to Postgres makes it look, for chosen keys: a claim's statement runs at once but its
 * answer reaches the worker late, and the records of a write's first dispatch do not reach Postgres until the test
 * lets them. Every other call passes straight through to the real store.
 */
export interface SlowStore {
  readonly store: ToolStore;
  /** The answer to a claim of `key` reaches the worker `ms` after Postgres gave it. */
  delayClaimReply(key: string, ms: number): void;
  /** Holds the records of `key`'s dispatch attempts (audit attempts 1–99) until {@link releaseRecords}. */
  holdRecords(key: string): void;
  releaseRecords(key: string): void;
}

export function slowStore(store: ToolStore): SlowStore {
  const claimDelays = new Map<string, number>();
  const gates = new Map<string, { readonly opened: Promise<void>; readonly open: () => void }>();
  const dispatchRecordKey = (input: RecordExecutionInput): string | null => {
    const { audit } = input.execution;
    return audit.attempt > AUDIT_ATTEMPT_BASE.dispatch && audit.attempt < AUDIT_ATTEMPT_BASE.redispatch
      ? audit.idempotency_key
      : null;
  };
  const slow: ToolStore = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'claimIdempotencyKey') {
        return async (input: ClaimInput) => {
          const answer = await target.claimIdempotencyKey(input);
          const delay = claimDelays.get(input.idempotencyKey);
          if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
          return answer;
        };
      }
      if (property === 'recordExecution') {
        return async (input: RecordExecutionInput) => {
          const key = dispatchRecordKey(input);
          const gate = key === null ? undefined : gates.get(key);
          if (gate !== undefined) await gate.opened;
          return target.recordExecution(input);
        };
      }
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    store: slow,
    delayClaimReply: (key, ms) => claimDelays.set(key, ms),
    holdRecords: (key) => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gates.set(key, { opened, open });
    },
    releaseRecords: (key) => gates.get(key)?.open(),
  };
}
