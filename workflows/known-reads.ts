import type { CallIdentity } from '../activities/call-identity.js';
import type { PreparedCall } from '../activities/prepare-call.js';
import type { ToolCallDefaults } from '../src/contract/define-tool.js';

/**
 * A read of a tool this workflow already prepared once: dispatched without preparing it again. It is never recorded
 * (the workflow builds it), and the tool activity checks everything `prepare` would have (arguments, caller,
 * continuation cursor) before the handler runs, as it does for every call.
 */
export interface KnownReadCall {
  readonly kind: 'known_read';
  readonly identity: CallIdentity;
  readonly callLimit?: number;
  readonly callDefaults?: ToolCallDefaults;
}

/** What workflow code knows about a call before it runs: the worker's preparation, or a read it knew already. */
export type CallToRun = PreparedCall | KnownReadCall;

/** What a later read of a tool needs from its first preparation: only how to dispatch it. */
type ReadFacts = Pick<KnownReadCall, 'callLimit' | 'callDefaults'>;

// Module state is per workflow execution in the TypeScript SDK's sandbox (see call-ids.ts), and it is filled from
// recorded preparations in workflow-code order, so it is the same on every replay.
const plainReads = new Map<string, ReadFacts>();

/**
 * Remembers a prepared call of `name` when it is a plain read: no approval to ask for, and no business key (its key
 * is its operation id, which workflow code can form itself). Anything else keeps being prepared call by call.
 */
export function learnPlainRead(name: string, prepared: PreparedCall): void {
  // The recorded preparation's view of `isPlainRead` (activities/tool-activity.ts), which the worker checks again.
  if (prepared.kind !== 'ready' || prepared.effect !== 'read' || prepared.requiresApproval) return;
  if (prepared.identity.idempotencyKey !== prepared.identity.operationId) return;
  plainReads.set(name, {
    ...(prepared.callLimit === undefined ? {} : { callLimit: prepared.callLimit }),
    ...(prepared.callDefaults === undefined ? {} : { callDefaults: prepared.callDefaults }),
  });
}

/** How to dispatch a plain read of `name` this workflow already prepared, or `undefined`. */
export function plainReadFacts(name: string): ReadFacts | undefined {
  return plainReads.get(name);
}
