import { catalogFailure, describeThrown } from '../call-failure.js';
import type { AuthorizationContext } from '../tool-spec.js';
import { isCatalogCode } from '../error-catalog.js';
import { isToolError } from '../tool-error.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, passLayer, skipLayer, type StepResult } from './step.js';

/**
 * Authorization layer: the tool's `authorize`, asked with the arguments the handler would get and the trusted
 * principal, before anything runs. Only `true` allows the call. Anything else is `PERMISSION_DENIED`
 * (`not_started`); the reason goes to the audit, the model sees the catalog text. A `ToolError` with a catalog code
 * (the policy service is unavailable, say) is that code; any other throw denies: the check fails closed.
 */
export async function checkAuthorization(state: FunnelState): Promise<StepResult> {
  const { tool } = state;
  if (tool.authorize === undefined) return skipLayer(state, 'authorization', 'no authorize declared');
  const rule = `authorize@policy=${tool.revisions.policy}`;
  let verdict: unknown;
  try {
    verdict = await tool.authorize(state.handlerArguments, state.ctx.principal, authorizationContext(state));
  } catch (thrown) {
    if (isToolError(thrown) && isCatalogCode(thrown.code)) {
      const failure = catalogFailure(
        thrown.code,
        'authorization',
        { thrown_code: thrown.code },
        { retryAfterMs: thrown.retryAfterMs },
      );
      return failLayer(state, 'authorization', rule, failure, `authorize threw ${thrown.code}`);
    }
    const detail = { authorize_threw: describeThrown(thrown) };
    return failLayer(
      state,
      'authorization',
      rule,
      catalogFailure('PERMISSION_DENIED', 'authorization', detail),
      'authorize threw; denied',
    );
  }
  if (verdict === true) return passLayer(state, 'authorization', rule);
  const reason =
    typeof verdict === 'string' ? verdict : `authorize returned ${verdict === false ? 'false' : typeof verdict}`;
  return failLayer(
    state,
    'authorization',
    rule,
    catalogFailure('PERMISSION_DENIED', 'authorization', { reason }),
    reason,
  );
}

function authorizationContext(state: FunnelState): AuthorizationContext {
  const { callId, operationId, signal } = state.ctx;
  return { tool: state.tool.name, callId, operationId, now: state.now, ...(signal ? { signal } : {}) };
}
