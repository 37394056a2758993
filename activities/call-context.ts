import { Context } from '@temporalio/activity';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import { nodeSha256Hex } from './node-sha256.js';

/** The worker's secrets a call may need; they come from the runtime, never from the identity (which is in history). */
export type HostKeys = Pick<ExecutionContext, 'principalKey' | 'cursorKey' | 'acceptedProviders'>;

/**
 * The contract's execution context for a call, inside the current activity (coordinates from activity info). The
 * handler's signal is the activity's cancellation unless the caller passes one that also aborts at a deadline.
 */
export function activityExecutionContext(
  identity: CallIdentity,
  auditAttempt: number,
  keys: HostKeys,
  signal?: AbortSignal,
): ExecutionContext {
  const context = Context.current();
  const info = context.info;
  return {
    ...keys,
    principal: identity.principal,
    provider: identity.provider,
    callId: identity.callId,
    operationId: identity.operationId,
    idempotencyKey: identity.idempotencyKey,
    attempt: auditAttempt,
    temporal: {
      workflowId: info.workflowExecution?.workflowId ?? 'none',
      runId: info.workflowExecution?.runId ?? 'none',
      activityId: info.activityId,
      attempt: info.attempt,
    },
    signal: signal ?? context.cancellationSignal,
    sha256: nodeSha256Hex,
  };
}

/** Workflow coordinates of the current activity, for store rows. */
export function activityWorkflow(): { workflowId: string; runId: string | null } {
  const execution = Context.current().info.workflowExecution;
  return { workflowId: execution?.workflowId ?? 'none', runId: execution?.runId ?? null };
}
