import type { Priority } from '@temporalio/common';
import type { Principal } from '../src/contract/tool-handler.js';
import { utf8ByteLength } from '../src/contract/truncation.js';

/** Temporal's limit on a fairness key. */
export const MAX_FAIRNESS_KEY_BYTES = 64;

/**
 * The task-queue priority of a call's activities and of its reconciliation: the principal's tenant as the fairness
 * key, so on a server with fairness enabled one tenant's burst of tool calls cannot starve the others on a shared
 * task queue; `override` (the call's `priority` option) wins field by field. A tenant longer than the key may be
 * gets none rather than a cut key that two tenants could share. `undefined` when nothing is set: the activity then
 * inherits the workflow's priority, as before.
 */
export function callPriority(principal: Principal, override: Priority | undefined): Priority | undefined {
  const { tenant } = principal;
  const fair = tenant !== '' && utf8ByteLength(tenant) <= MAX_FAIRNESS_KEY_BYTES ? { fairnessKey: tenant } : {};
  const priority = { ...fair, ...override };
  return Object.keys(priority).length === 0 ? undefined : priority;
}
