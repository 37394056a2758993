import { failureFromThrown } from '../call-failure.js';
import { openDispatchFence, type HandlerContext } from '../tool-handler.js';
import { isToolError } from '../tool-error.js';
import { wellFormedPrefix } from '../truncation.js';
import { rawBodyDigest } from './data-shape-step.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, proceed, stop, type StepResult } from './step.js';

/**
 * Runs the tool's handler. Whatever it returns or throws is recorded as is; mapping a throw is the next step's
 * work, so that once the handler ran nothing can leave the state looking as if it never did.
 */
export async function runHandler(state: FunnelState): Promise<StepResult> {
  const start = state.now();
  let settled: { returned: unknown } | { thrown: unknown };
  try {
    settled = { returned: await state.tool.handler(state.handlerArguments, handlerContext(state)) };
  } catch (thrown) {
    settled = { thrown };
  }
  return proceed(state, { handler: { ms: state.now() - start, settled } });
}

/**
 * A handler that threw ends the call with the failure its throw maps to (catalog, business or `TOOL_ERROR`). The
 * raw response a `ToolError` carries (`readHttpJson` attaches it) is digested for the audit, and a thrown
 * `PROTOCOL_ERROR` is the protocol layer's verdict: the handler's own protocol check refused the response.
 */
export function failOnHandlerThrow(state: FunnelState): StepResult {
  const settled = state.handler?.settled;
  if (settled === undefined || !('thrown' in settled)) return proceed(state);
  const { thrown } = settled;
  const failure = failureFromThrown(state.tool, thrown);
  if (!isToolError(thrown)) return stop(state, failure);
  const rawResponse = rawBodyDigest(thrown.rawResponse, state.sha256) ?? state.rawResponse;
  if (failure.error.code !== 'PROTOCOL_ERROR') return stop({ ...state, rawResponse }, failure);
  // A ToolError of another copy of this package is recognised by shape only: its fields are read defensively.
  const details: unknown = thrown.details;
  const stated =
    typeof details === 'object' && details !== null ? (details as Record<string, unknown>)['reason'] : undefined;
  const reason = typeof stated === 'string' ? stated : 'the handler refused the upstream response';
  const rule = typeof thrown.rule === 'string' ? wellFormedPrefix(thrown.rule, 256) : 'handler-reported';
  return failLayer(
    state,
    'protocol',
    rule,
    { ...failure, layer: 'protocol', error: { ...failure.error, layer: 'protocol' } },
    reason,
    { rawResponse },
  );
}

/** What the handler returned; only called after {@link failOnHandlerThrow} let the call through. */
export function handlerOutput(state: FunnelState): unknown {
  const settled = state.handler?.settled;
  if (settled === undefined || !('returned' in settled))
    throw new Error('internal: a funnel step read the handler output before the handler returned');
  return settled.returned;
}

function handlerContext(state: FunnelState): HandlerContext {
  const {
    callId,
    operationId,
    idempotencyKey,
    attempt,
    principal,
    signal,
    beforeDispatch = openDispatchFence,
  } = state.ctx;
  return {
    callId,
    operationId,
    idempotencyKey,
    attempt,
    principal,
    now: state.now,
    beforeDispatch,
    ...(signal ? { signal } : {}),
  };
}
