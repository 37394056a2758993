import { canonicalJson } from './canonical-json.js';
import type { ExecutionContext } from './execution-context.js';
import { sha256Hex } from './sha256.js';

/**
 * The audit id of one attempt of a call: fixed by the operation, the call and the attempt number, so a retry that
 * records the same attempt meets the record an earlier try left, and can read it back by this id.
 */
export function auditIdOf(ctx: Pick<ExecutionContext, 'operationId' | 'callId' | 'attempt' | 'sha256'>): string {
  const digest = (ctx.sha256 ?? sha256Hex)(
    canonicalJson({ op: ctx.operationId, call: ctx.callId, attempt: ctx.attempt }),
  );
  return `aud_${digest.slice(0, 24)}`;
}
