import { principalRef } from '../contract/principal-ref.js';
import type { ErasureRecord } from '../store/index.js';
import { withOwnerTrail } from './audit-trail-access.js';
import type { CliDeps } from './command.js';
import type { EraseInput } from './commands/erase.js';
import { configuredPrincipalKey } from './principal-key-config.js';

/**
 * As the owner: erases a workflow, or a principal found by the reference its audits carry — keyed with
 * TTC_PRINCIPAL_KEY exactly as the worker keys it (without the key, the plain digest a keyless worker wrote).
 */
export async function eraseAudit(input: EraseInput, deps: CliDeps): Promise<ErasureRecord> {
  const scope =
    'workflowId' in input
      ? { scope: 'workflow' as const, scopeRef: input.workflowId }
      : {
          scope: 'principal' as const,
          scopeRef: principalRef(input.principal, configuredPrincipalKey(deps.config.principalKey)),
        };
  return withOwnerTrail(deps, 'erase', (trail) => trail.erase({ ...scope, erasedBy: input.by, reason: input.reason }));
}
