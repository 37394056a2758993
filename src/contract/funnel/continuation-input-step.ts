import { catalogFailure } from '../call-failure.js';
import type { ToolContinuation } from '../tool-spec.js';
import { REFUSED_CURSOR_MESSAGE } from '../error-catalog.js';
import { unsealCursor } from '../sealed-cursor.js';
import type { FunnelState, PageStart } from './funnel-state.js';
import { failLayer, proceed, type StepResult } from './step.js';

const RULE = 'cursor@1';

/**
 * Input layer, part three: where a listing continues. For an `offset` continuation the offset argument is the
 * position. For a `cursor` continuation the argument must be a cursor this executor sealed for this principal, this
 * tool and these other arguments, and not expired; the handler then gets the upstream's own cursor in its place.
 * A forged, foreign or expired cursor is `INVALID_ARGUMENTS` and nothing runs.
 */
export function openContinuation(state: FunnelState): StepResult {
  const continuation = state.tool.continuation;
  if (continuation === undefined) return proceed(state, { handlerArguments: state.arguments });
  const args = state.arguments as Record<string, unknown>;
  const presented = args[continuation.argument];
  if (continuation.kind === 'offset') {
    const position = Number.isSafeInteger(presented) && (presented as number) >= 0 ? (presented as number) : 0;
    return proceed(state, { handlerArguments: args, page: { position, upstreamCursor: null, skip: 0 } });
  }
  const key = state.ctx.cursorKey;
  if (key === undefined) {
    // The host's misconfiguration, not the model's: no cursor could be sealed or opened.
    return failLayer(
      state,
      'input',
      RULE,
      catalogFailure('TOOL_ERROR', 'input', { reason: 'no_cursor_key' }),
      'a cursor continuation needs ExecutionContext.cursorKey',
    );
  }
  if (presented === undefined || presented === null) {
    return proceed(state, { handlerArguments: args, page: { position: 0, upstreamCursor: null, skip: 0 } });
  }
  const refuse = (reason: string) =>
    failLayer(
      state,
      'input',
      RULE,
      catalogFailure('INVALID_ARGUMENTS', 'input', { cursor: reason }, { message: REFUSED_CURSOR_MESSAGE }),
      `cursor refused: ${reason}`,
    );
  if (typeof presented !== 'string') return refuse('malformed');
  const opened = unsealCursor(key, cursorBinding(state, continuation), presented, state.now());
  if (!opened.ok) return refuse(opened.reason);
  const page: PageStart = { position: opened.at.position, upstreamCursor: opened.at.cursor, skip: opened.at.skip };
  const others = withoutArgument(args, continuation.argument);
  return proceed(state, {
    handlerArguments: opened.at.cursor === null ? others : { ...others, [continuation.argument]: opened.at.cursor },
    page,
  });
}

/** What a cursor of this call is sealed for: the caller, the tool and every argument but the cursor. */
export function cursorBinding(
  state: FunnelState,
  continuation: ToolContinuation,
): { principal: FunnelState['ctx']['principal']; tool: string; arguments: unknown } {
  return {
    principal: state.ctx.principal,
    tool: state.tool.name,
    arguments: withoutArgument(state.arguments as Record<string, unknown>, continuation.argument),
  };
}

function withoutArgument(args: Readonly<Record<string, unknown>>, name: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([key]) => key !== name));
}
