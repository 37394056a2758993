import { cutWithDigest } from '../digest-cut.js';
import type { ExecutionContext } from '../execution-context.js';

/**
 * Longest trusted value recorded as given. Ids are short; one this long comes from somewhere it should not (an
 * idempotency key derived from an unbounded argument), and the audit must stay bounded (`MAX_AUDIT_BYTES`).
 */
export const MAX_TRUSTED_VALUE_CHARS = 2048;

/** A call's trusted context as the audit and the bindings can record it, and which values had to change. */
export interface RecordableContext {
  readonly ctx: ExecutionContext;
  /** Names of the trusted values that could not be recorded as given (e.g. `idempotencyKey`). */
  readonly unrecordable: readonly string[];
}

/**
 * The trusted values the audit stores and the bindings digest (principal, call ids, idempotency key, provider and
 * Temporal ids) must have a canonical JSON form and a bounded size. One with a lone surrogate has no canonical form,
 * so the call could be neither bound nor stored: it is recorded with U+FFFD in place of the surrogate. One longer
 * than {@link MAX_TRUSTED_VALUE_CHARS} is recorded cut, with a digest of the whole. Either is named in
 * `unrecordable`, so that the call can be refused with an audit instead of throwing. A context with nothing to
 * change is returned as is.
 */
export function recordableContext(ctx: ExecutionContext): RecordableContext {
  const unrecordable: string[] = [];
  const record = <T extends string | null>(name: string, value: T): T => {
    if (typeof value !== 'string' || (value.isWellFormed() && value.length <= MAX_TRUSTED_VALUE_CHARS)) return value;
    unrecordable.push(name);
    return cutWithDigest(value.toWellFormed(), MAX_TRUSTED_VALUE_CHARS) as T;
  };
  const { principal, provider, temporal } = ctx;
  const recorded: ExecutionContext = {
    ...ctx,
    principal: {
      tenant: record('principal.tenant', principal.tenant),
      subject: record('principal.subject', principal.subject),
    },
    provider: {
      provider: record('provider.provider', provider.provider),
      apiFamily: record('provider.apiFamily', provider.apiFamily),
      responseId: record('provider.responseId', provider.responseId),
      providerCallId: record('provider.providerCallId', provider.providerCallId),
      adapterRevision: record('provider.adapterRevision', provider.adapterRevision),
    },
    callId: record('callId', ctx.callId),
    operationId: record('operationId', ctx.operationId),
    idempotencyKey: record('idempotencyKey', ctx.idempotencyKey),
    ...(temporal
      ? {
          temporal: {
            ...temporal,
            workflowId: record('temporal.workflowId', temporal.workflowId),
            runId: record('temporal.runId', temporal.runId),
            activityId: record('temporal.activityId', temporal.activityId),
          },
        }
      : {}),
  };
  return unrecordable.length === 0 ? { ctx, unrecordable } : { ctx: recorded, unrecordable };
}
