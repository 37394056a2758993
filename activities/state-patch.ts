import type { StatePatchInput, StatePatchResult } from '../src/store/state-patch.js';
import type { ToolRuntime } from './runtime.js';

export type { StatePatchInput, StatePatchResult } from '../src/store/state-patch.js';

/** Applies a state patch from workflow code: idempotent by patch id, optimistic on version, evidence checked. */
export function createApplyStatePatch(runtime: ToolRuntime): (input: StatePatchInput) => Promise<StatePatchResult> {
  return (input) => runtime.store.applyStatePatch(input);
}
