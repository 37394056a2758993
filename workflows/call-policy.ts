import type { ToolCallDefaults } from '../src/contract/define-tool.js';
import type { DispatchOptions } from './tool-dispatch.js';

/**
 * What a tool activity gets when neither the call nor the tool says: a 10 s heartbeat timeout, so a workflow cancel
 * reaches a running handler within seconds (the SDK sends a heartbeat at most every 0.8 × this) and a dead worker's
 * attempt is retried or reconciled after 10 s instead of the whole attempt timeout.
 */
export const PACKAGE_CALL_DEFAULTS = Object.freeze({ heartbeatTimeoutMs: 10_000 }) satisfies Required<ToolCallDefaults>;

/** The dispatch options of one call: the call's own options, else the tool's defaults, else the package's. */
export function dispatchOptionsFor(callDefaults: ToolCallDefaults | undefined, options: DispatchOptions): DispatchOptions {
  return {
    ...options,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? callDefaults?.heartbeatTimeoutMs ?? PACKAGE_CALL_DEFAULTS.heartbeatTimeoutMs,
  };
}
