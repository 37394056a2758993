import { Context } from '@temporalio/activity';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import type { PrincipalKey } from '../src/contract/principal-ref.js';
import type { CallIdentity } from './call-identity.js';

/**
 * The contract's execution context for a call, inside the current activity (coordinates from activity info). The
 * principal key comes from the worker's runtime, never from the identity: the identity is in history, the key is not.
 */
export function activityExecutionContext(identity: CallIdentity, auditAttempt: number, principalKey: PrincipalKey | undefined): ExecutionContext {
  const context = Context.current();
  const info = context.info;
  return {
    principal: identity.principal,
    ...(principalKey === undefined ? {} : { principalKey }),
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
    signal: context.cancellationSignal,
  };
}

/** Workflow coordinates of the current activity, for store rows. */
export function activityWorkflow(): { workflowId: string; runId: string | null } {
  const execution = Context.current().info.workflowExecution;
  return { workflowId: execution?.workflowId ?? 'none', runId: execution?.runId ?? null };
}
