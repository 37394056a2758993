import { catalogFailure } from '../call-failure.js';
import type { Principal } from '../tool-handler.js';
import type { DataScope } from '../tool-spec.js';
import { resolvePointer } from '../json-pointer.js';
import { locateItemsList } from '../truncation.js';
import { envelopeOf, type FunnelState } from './funnel-state.js';
import { failLayer, passLayer, skipLayer, type StepResult } from './step.js';

/** Out-of-scope item indexes the audit lists; the rest are counted. */
const MAX_LISTED_INDEXES = 20;

/**
 * Scope layer: every record the handler returned belongs to the caller — its tenant (and subject) at the tool's
 * declared pointers equals the principal's, exactly. It runs on the data as returned, before the schema or any
 * later layer, so that no other failure (a schema error, a stale record) can tell the model that a foreign record
 * exists. A foreign or unattributed single record is `NOT_FOUND`, the answer an absent one gets (SPEC §4: not found
 * never distinguishes "absent" from "not yours"). A listing with any such item is refused whole as
 * `PERMISSION_DENIED`: its counts and continuation cannot be trusted either, and `NOT_FOUND` would read as "no
 * results". The audit records which pointer and items failed, never the foreign values.
 */
export function checkScope(state: FunnelState): StepResult {
  const { scope, budget } = state.tool;
  if (scope === undefined) return skipLayer(state, 'scope', 'no scope declared');
  const pointers = [
    scope.tenantPointer === undefined ? [] : [`tenant=${scope.tenantPointer}`],
    scope.subjectPointer === undefined ? [] : [`subject=${scope.subjectPointer}`],
  ];
  const rule = ['scope@1', ...pointers.flat()].join(';');
  const { data } = envelopeOf(state);
  const listPointer = locateItemsList(data, budget.itemsPointer);
  if (listPointer === null) {
    if (inScope(data, scope, state.ctx.principal)) return passLayer(state, 'scope', rule);
    return failLayer(
      state,
      'scope',
      rule,
      catalogFailure('NOT_FOUND', 'scope', { out_of_scope: 'record' }),
      "the record is not the caller's",
    );
  }
  const items = resolvePointer(data, listPointer);
  const records = items.found && Array.isArray(items.value) ? (items.value as unknown[]) : [];
  const foreign = records.flatMap((record, index) => (inScope(record, scope, state.ctx.principal) ? [] : [index]));
  if (foreign.length === 0) return passLayer(state, 'scope', rule);
  const detail = {
    out_of_scope: 'items',
    list: listPointer,
    count: foreign.length,
    of: records.length,
    indexes: foreign.slice(0, MAX_LISTED_INDEXES),
  };
  return failLayer(
    state,
    'scope',
    rule,
    catalogFailure('PERMISSION_DENIED', 'scope', detail),
    `${foreign.length} of ${records.length} items are not the caller's`,
  );
}

function inScope(record: unknown, scope: DataScope, principal: Principal): boolean {
  const owns = (pointer: string | undefined, expected: string) => {
    if (pointer === undefined) return true;
    const found = resolvePointer(record, pointer);
    return found.found && found.value === expected;
  };
  return owns(scope.tenantPointer, principal.tenant) && owns(scope.subjectPointer, principal.subject);
}
