import type { Provenance } from '../model-result.js';
import type { FunnelState } from './funnel-state.js';

/**
 * Provenance of a result that shows no data (a failure, an accepted job): what the tool's definition declares, and
 * when this call read — nothing the handler reported, since none of it was validated.
 */
export function declaredProvenance(state: FunnelState): Provenance {
  const { tool } = state;
  return {
    source_label: tool.source.label,
    source_type: tool.source.type,
    producer_revision: tool.revisions.producer,
    resource_revision: null,
    observed_at: null,
    retrieved_at: new Date(state.startedAt).toISOString(),
    trust: tool.source.trust ?? 'untrusted_data',
  };
}
