import type { Priority } from '@temporalio/common';
import { tenantRef } from '../src/contract/tenant-ref.js';
import type { Principal } from '../src/contract/tool-handler.js';

/**
 * The task-queue priority of a call's activities and of its reconciliation — every path that schedules work for a
 * call takes it from here: the principal's tenant reference (`tenantRef`, never the tenant's name: the key is stored
 * unencrypted in history and Temporal's OpenTelemetry workflow exporter copies it onto every span of the
 * reconciliation) as the fairness key, so on a server with fairness enabled one tenant's burst of tool calls cannot
 * starve the others on a shared task queue; `override` (the call's `priority` option) wins field by field. The
 * reference is 32 hex digits, within Temporal's 64-byte limit for any tenant. `undefined` when nothing is set (no
 * tenant, no override): the activity then inherits the workflow's priority.
 */
export function callPriority(principal: Principal, override: Priority | undefined): Priority | undefined {
  const fair = principal.tenant === '' ? {} : { fairnessKey: tenantRef(principal.tenant) };
  const priority = { ...fair, ...override };
  return Object.keys(priority).length === 0 ? undefined : priority;
}
