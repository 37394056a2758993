import { catalogFailure, describeThrown } from '../call-failure.js';
import type { ExecutionContext } from '../execution-context.js';
import type { Precondition } from '../preconditions.js';
import type { AnyToolImplementation } from '../tool-spec.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, passLayer, skipLayer, type Step, type StepResult } from './step.js';
import type { ToolExecution } from './tool-execution.js';

/** Runs one call through the whole funnel (the funnel itself, handed in so that this step does not import it). */
export type Executor = (tool: AnyToolImplementation, rawArgs: unknown, ctx: ExecutionContext) => Promise<ToolExecution>;

/**
 * Precondition layer, right before the handler (and only then: not when an approval is requested, a result replayed or a write reconciled —
 * a write that already happened is not judged again on what it changed): each of the write's preconditions reads its
 * premise again, as the write's caller, and the write runs only when every read succeeded and its `holds` accepts the
 * fresh data. Otherwise it does not start: `PRECONDITION_FAILED` (the reason and the read's digests in the audit).
 */
export function confirmPreconditions(execute: Executor): Step {
  return async (state: FunnelState): Promise<StepResult> => {
    const preconditions = (state.tool.preconditions ?? []) as readonly Precondition<unknown>[];
    if (preconditions.length === 0) return skipLayer(state, 'precondition', 'no preconditions declared');
    const rules: string[] = [];
    for (const precondition of preconditions) {
      const rule = `precondition:${precondition.id}@${precondition.read.name};policy=${precondition.read.revisions.policy}`;
      rules.push(rule);
      const refused = (reason: string, detail: Record<string, unknown>) =>
        failLayer(
          state,
          'precondition',
          rule,
          catalogFailure('PRECONDITION_FAILED', 'precondition', { precondition: precondition.id, ...detail }),
          reason,
        );
      let readArgs: unknown;
      try {
        readArgs = precondition.arguments(state.arguments);
      } catch (error) {
        return refused('its read arguments threw', { arguments_threw: describeThrown(error) });
      }
      const read = await execute(precondition.read, readArgs, readContext(state.ctx, precondition.id));
      const { modelResult, audit } = read;
      const digests = {
        read_status: modelResult.status,
        read_code: modelResult.error?.code ?? null,
        read_result_sha256: audit.bindings.result_sha256,
      };
      if (modelResult.status !== 'succeeded')
        return refused(`the fresh read of '${precondition.id}' did not succeed (${modelResult.status})`, digests);
      let verdict: boolean | string;
      try {
        verdict = precondition.holds(modelResult.data, state.arguments);
      } catch (error) {
        verdict = `holds threw: ${String(describeThrown(error)['exception'])}`;
      }
      if (verdict !== true)
        return refused(typeof verdict === 'string' ? verdict : 'holds returned false', {
          ...digests,
          reason: typeof verdict === 'string' ? verdict : null,
        });
    }
    return passLayer(state, 'precondition', rules.join(','));
  };
}

/** The read's own call: the write's caller and provider, its own call id and key (a read claims nothing with it). */
function readContext(ctx: ExecutionContext, id: string): ExecutionContext {
  return {
    ...ctx,
    callId: `${ctx.callId}:precondition:${id}`,
    idempotencyKey: `${ctx.idempotencyKey}:precondition:${id}`,
    beforeDispatch: () => Promise.resolve(),
  };
}
