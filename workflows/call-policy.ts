import type { ToolCallDefaults } from '../src/contract/define-tool.js';
import type { DispatchOptions } from './tool-dispatch.js';

/**
 * What a tool activity gets when neither the call nor the tool says: 30 s per attempt, 3 attempts for a read whose
 * failure is retryable, and a 10 s heartbeat timeout, so a workflow cancel reaches a running handler within seconds
 * (the SDK sends a heartbeat at most every 0.8 × this) and a dead worker's attempt is retried or reconciled after
 * 10 s instead of the whole attempt timeout.
 */
export const PACKAGE_CALL_DEFAULTS = Object.freeze({ timeoutMs: 30_000, readAttempts: 3, heartbeatTimeoutMs: 10_000 }) satisfies Required<ToolCallDefaults>;

/** The dispatch options of one call: each field from the call's options, else the tool's defaults, else the package's. */
export function dispatchOptionsFor(callDefaults: ToolCallDefaults | undefined, options: DispatchOptions): Required<ToolCallDefaults> & DispatchOptions {
  return {
    ...options,
    timeoutMs: options.timeoutMs ?? callDefaults?.timeoutMs ?? PACKAGE_CALL_DEFAULTS.timeoutMs,
    readAttempts: options.readAttempts ?? callDefaults?.readAttempts ?? PACKAGE_CALL_DEFAULTS.readAttempts,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? callDefaults?.heartbeatTimeoutMs ?? PACKAGE_CALL_DEFAULTS.heartbeatTimeoutMs,
  };
}
