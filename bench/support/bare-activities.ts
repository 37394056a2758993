import { Context } from '@temporalio/activity';
import { openDispatchFence } from '../../src/contract/tool-handler.js';
import type { AnyToolImplementation, HandlerContext, Principal } from '../../src/index.js';
import { bareActivityName } from './bare-names.js';

/**
 * The baseline of the end-to-end benchmark: each tool's handler registered as a plain activity, with no contract
 * around it (no argument validation, no ledger, no funnel, no audit) — what a user would write without the plugin.
 * Its handler context is built from activity info the way the plugin builds it, so the handler does the same work.
 */
export function createBareActivities(
  tools: Iterable<AnyToolImplementation>,
  principal: Principal,
): Record<string, (args: unknown) => Promise<unknown>> {
  const activities: Record<string, (args: unknown) => Promise<unknown>> = {};
  for (const tool of tools) {
    activities[bareActivityName(tool.name)] = (args: unknown) => {
      const { info, cancellationSignal } = Context.current();
      const operationId = `${info.workflowExecution?.workflowId ?? 'none'}:${info.activityId}`;
      const ctx: HandlerContext = {
        callId: info.activityId,
        operationId,
        idempotencyKey: operationId,
        attempt: info.attempt,
        principal,
        now: Date.now,
        signal: cancellationSignal,
        beforeDispatch: openDispatchFence,
      };
      return tool.handler(args, ctx);
    };
  }
  return activities;
}
