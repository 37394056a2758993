import type { ProviderRevision } from '../src/contract/provider-revisions.js';
import type { ToolRegistry } from '../src/contract/tool-registry.js';
import type { HostKeys } from './call-context.js';
import type { WorkerStore } from '../src/store/tool-store.js';
import type { DecisionPolicy } from './check-decision.js';
import type { ToolCallTelemetry } from './call-telemetry.js';

/** What the package's activities and the tool activity interceptor work with; injected by the plugin. */
export interface ToolRuntime {
  readonly registry: ToolRegistry;
  readonly store: WorkerStore;
  /**
   * Tools whose write may be dispatched once more, with the same idempotency key, after the authoritative system
   * said it was not committed. Any other tool's uncommitted write ends as failed, `not_started`.
   */
  readonly safeRetryTools: ReadonlySet<string>;
  /** Keys every audit's `principal_ref` (already checked by `parsePrincipalKey`); absent: plain digests. */
  readonly principalKey?: Uint8Array;
  /** Seals and opens the continuation cursors of tools with a `cursor` continuation (already length-checked). */
  readonly cursorKey?: Uint8Array;
  /** The provider bindings a call may be bound to (the package's own and the plugin's `acceptedProviders`); absent: any. */
  readonly acceptedProviders?: readonly ProviderRevision[];
  /** How approvals and resolutions are authenticated and which ones count. */
  readonly decisions: DecisionPolicy;
  /** Where tool calls and reconciliation steps are reported as spans; absent: metrics only (the runtime's meter). */
  readonly telemetry?: ToolCallTelemetry;
}

/** The runtime's secrets as an execution context takes them (only those that are configured). */
export function hostKeysOf(runtime: ToolRuntime): HostKeys {
  return {
    ...(runtime.principalKey === undefined ? {} : { principalKey: runtime.principalKey }),
    ...(runtime.cursorKey === undefined ? {} : { cursorKey: runtime.cursorKey }),
    ...(runtime.acceptedProviders === undefined ? {} : { acceptedProviders: runtime.acceptedProviders }),
  };
}
