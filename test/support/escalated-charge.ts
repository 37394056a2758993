// A charge whose outcome reconciliation cannot learn: it commits, its answer never arrives, and the provider's status
// endpoint stays unavailable, so the reconciliation escalates to a person. For tests of how a person settles it.
import type { WorkflowHandle } from '@temporalio/client';
import { reconcileWorkflowId } from '../../src/wire/ids.js';
import { RECONCILE_STATE_SA } from '../../src/wire/search-attributes.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { eventually } from './eventually.js';
import type { RuntimeHarness } from './runtime-harness.js';

/** Starts the charge `paymentId` in workflow `workflowId` and returns once its reconciliation has escalated. */
export async function escalatedCharge(
  h: RuntimeHarness,
  principal: { readonly tenant: string; readonly subject: string },
  paymentId: string,
  workflowId: string,
): Promise<{ readonly key: string; readonly handle: WorkflowHandle; readonly reconciler: WorkflowHandle }> {
  const key = chargeKey(principal.tenant, paymentId);
  h.payments.inject(key, 'commit_then_hang');
  h.payments.setStatusFault(key, 'unavailable');
  const handle = await h.temporal.client.workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [
      TOOLS.charge,
      { payment_id: paymentId, customer: 'cus_1', amount_cents: 500 },
      { principal, timeoutMs: 1500, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 10_000 } },
    ],
  });
  const reconciler = h.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
  await eventually(
    'escalation',
    async () =>
      (await reconciler.describe()).typedSearchAttributes.get(RECONCILE_STATE_SA) === 'escalated' ? true : undefined,
    60_000,
  );
  return { key, handle, reconciler };
}
