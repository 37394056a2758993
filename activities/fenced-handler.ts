import type { AnyToolDefinition, HandlerContext } from '../src/contract/define-tool.js';
import type { DispatchFence } from './dispatch-fence.js';

/**
 * A write's handler behind the package's own dispatch fence, passed at the last point the package controls before the
 * handler runs (after the claim, the approval and the funnel's input checks): once reconciliation revoked the
 * attempt's lease (or its deadline passed), the handler does not start, so a write whose handler never started is
 * refused cleanly (`TIMEOUT_BEFORE_EXECUTE`, not started) whether or not it calls `ctx.beforeDispatch()`. The
 * handler's own call stays the tighter fence: it also stops a handler frozen between its start and its request.
 * Costs a write one store round trip; a read is returned as it is (running one twice has no side effect).
 */
export function behindHandlerFence(tool: AnyToolDefinition, fence: DispatchFence): AnyToolDefinition {
  if (tool.effect === 'read') return tool;
  return {
    ...tool,
    handler: async (args: unknown, ctx: HandlerContext) => {
      await fence.beforeHandler();
      return tool.handler(args, ctx);
    },
  };
}
