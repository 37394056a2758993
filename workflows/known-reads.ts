import type { CallIdentity } from '../activities/call-identity.js';
import type { PreparedCall } from '../activities/prepare-call.js';
import type { ToolCallDefaults } from '../src/contract/define-tool.js';
import { TOOL_NAME_PATTERN } from '../src/contract/tool-spec.js';
import { RESERVED_ACTIVITY_PREFIX } from '../src/wire/names.js';

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
  /** The tool's own name, when the read is made under an alias (see `ReadyCall.canonicalTool`). */
  readonly canonicalTool?: string;
}

/**
 * A call whose caller expects a plain read of a tool this run has not prepared yet (`CallToolOptions.expectPlainRead`):
 * dispatched unprepared, with the identity a preparation would give it. The worker runs it only when the tool is a
 * plain read with no call limit or call defaults of its own; otherwise nothing runs and the workflow prepares it.
 */
export interface ExpectedReadCall {
  readonly kind: 'expected_read';
  readonly identity: CallIdentity;
}

/** What workflow code knows about a call before it runs: the worker's preparation, or a read it knows or expects. */
export type CallToRun = PreparedCall | KnownReadCall | ExpectedReadCall;

/** What a later read of a tool needs from its first preparation: only how to dispatch it. */
type ReadFacts = Pick<KnownReadCall, 'callLimit' | 'callDefaults' | 'canonicalTool'>;

/** What the run learned of a plain read, and whether from an expected read (which only code newer than known reads makes). */
type LearnedRead = ReadFacts & { readonly fromExpectedRead?: true };

// Module state is per workflow execution in the TypeScript SDK's sandbox (see call-ids.ts), and it is filled from
// recorded preparations and activity results in workflow-code order, so it is the same on every replay.
const plainReads = new Map<string, LearnedRead>();
/** Tools this run prepared as anything but a plain read: an expected read of one is prepared at once. */
const preparedOtherwise = new Set<string>();

/**
 * Remembers what a preparation of `name` said: a plain read (no approval to ask for, and no business key: its key is
 * its operation id, which workflow code can form itself) is dispatched as a known read from now on; anything else
 * keeps being prepared call by call. A refused call says nothing about its tool.
 */
export function learnPreparation(name: string, prepared: PreparedCall): void {
  if (prepared.kind !== 'ready') return;
  // The recorded preparation's view of `isPlainRead` (activities/tool-activity.ts), which the worker checks again.
  if (prepared.effect !== 'read' || prepared.requiresApproval || prepared.identity.idempotencyKey !== prepared.identity.operationId) {
    plainReads.delete(name);
    preparedOtherwise.add(name);
    return;
  }
  preparedOtherwise.delete(name);
  plainReads.set(name, {
    ...(prepared.callLimit === undefined ? {} : { callLimit: prepared.callLimit }),
    ...(prepared.callDefaults === undefined ? {} : { callDefaults: prepared.callDefaults }),
    ...(prepared.canonicalTool === undefined ? {} : { canonicalTool: prepared.canonicalTool }),
  });
}

/**
 * Remembers that a worker that serves `name` ran an expected read of it: the tool is a plain read with no call limit
 * or defaults of its own (`runsUnprepared`), so its later reads are known reads dispatched as this one was.
 */
export function learnServedRead(name: string): void {
  plainReads.set(name, { fromExpectedRead: true });
}

/** How to dispatch a plain read of `name` this workflow already prepared (or ran unprepared), or `undefined`. */
export function plainReadFacts(name: string): LearnedRead | undefined {
  return plainReads.get(name);
}

/**
 * True when `name` can be a tool's name at all and nothing this run learned says that it is not a plain read. A name
 * that no tool can have — invalid, or of the package's own activities (`ttc.*`) — is never dispatched unprepared:
 * the activity of that name is not a tool's, and preparation refuses the call as `UNKNOWN_TOOL`.
 */
export function mayBePlainRead(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name) && !name.startsWith(RESERVED_ACTIVITY_PREFIX) && !preparedOtherwise.has(name);
}

/** The identity a preparation gives a call of a tool without a business key: its operation id is its key. */
export function unpreparedIdentity(call: Omit<CallIdentity, 'operationId' | 'idempotencyKey'>, workflowId: string): CallIdentity {
  const operationId = `${workflowId}:${call.callId}`;
  return { ...call, operationId, idempotencyKey: operationId };
}

/** The activity summary of a call dispatched unprepared: its call, no arguments (the redacted preview is the worker's preparation). */
export function unpreparedSummary(identity: CallIdentity): string {
  return `${identity.tool} [read] ${identity.callId}`;
}
