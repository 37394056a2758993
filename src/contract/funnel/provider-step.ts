import { catalogFailure } from '../call-failure.js';
import { isAcceptedProvider, PROVIDER_REVISION_RULE } from '../provider-revisions.js';
import type { FunnelState } from './funnel-state.js';
import { failLayer, proceed, type StepResult } from './step.js';

/**
 * Input layer: a host that lists the provider bindings it accepts (`ExecutionContext.acceptedProviders`) runs no
 * call bound to another (`TOOL_ERROR`, not started: the binding is the host's value, not the model's to correct).
 * Without a list, every binding is taken as given (a host that does not run model calls of its own).
 */
export function refuseUnacceptedProvider(state: FunnelState): StepResult {
  const accepted = state.ctx.acceptedProviders;
  if (accepted === undefined || isAcceptedProvider(state.ctx.provider, accepted)) return proceed(state);
  const { apiFamily, adapterRevision } = state.ctx.provider;
  const failure = catalogFailure('TOOL_ERROR', 'input', {
    reason: 'provider_not_accepted',
    api_family: apiFamily,
    adapter_revision: adapterRevision,
  });
  return failLayer(
    state,
    'input',
    PROVIDER_REVISION_RULE,
    failure,
    `provider binding ${apiFamily} / ${adapterRevision} is not accepted`,
  );
}
