import { dropLeadingItems } from '../drop-leading-items.js';
import { locateItemsList } from '../truncation.js';
import { contractFailure } from './contract-failure.js';
import { envelopeOf, type FunnelState } from './funnel-state.js';
import { failLayer, proceed, type StepResult } from './step.js';

/**
 * Protocol layer, part three, for a tool that declares how it continues: the handler's `next` is of the declared
 * kind (an offset past this call's position, or a cursor string), and a cursor page whose start an earlier call
 * already showed loses those items here, before any check or count sees them.
 */
export function alignPage(state: FunnelState): StepResult {
  const { continuation, budget } = state.tool;
  if (continuation === undefined || state.page === null) return proceed(state);
  const output = envelopeOf(state);
  const next = output.next;
  if (next !== undefined && next !== null) {
    const fits =
      continuation.kind === 'offset'
        ? next.type === 'offset' && Number.isSafeInteger(next.value) && (next.value as number) > state.page.position
        : next.type === 'cursor' && typeof next.value === 'string';
    if (!fits) {
      const reason = `next must be ${continuation.kind === 'offset' ? "an offset past this call's position" : 'a cursor string'}`;
      return failLayer(
        state,
        'protocol',
        `continuation@1;${continuation.kind}`,
        contractFailure('protocol', { next: reason }),
        reason,
      );
    }
  }
  if (state.page.skip === 0) return proceed(state);
  const listPointer = locateItemsList(output.data, budget.itemsPointer);
  if (listPointer === null) return proceed(state);
  return proceed(state, { envelope: dropLeadingItems(output, listPointer, state.page.skip) });
}
