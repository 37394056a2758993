import type { AnyToolImplementation } from './tool-spec.js';
import { checkBeforeHandler, type ToolExecution } from './execute-tool.js';
import type { ExecutionContext } from './execution-context.js';
import type { Delivery, ModelResult, Receipt } from './model-result.js';
import { reshapeExecution } from './reshape-execution.js';

/** What is being delivered without running the handler now: how it was obtained, and what it says happened. */
export interface SettledDelivery {
  readonly delivery: Extract<Delivery, 'local_replay' | 'receipt_reconciled'>;
  /** The write's receipt when it committed (`null`: nothing committed, e.g. a replayed refusal or read). */
  readonly committed: Receipt | null;
}

/** Warning of a committed write whose result this caller may not see now. */
export const DELIVERY_WITHHELD = Object.freeze({
  code: 'DELIVERY_WITHHELD',
  message:
    'The operation took effect (the authoritative system confirmed it), but its result cannot be shown to this caller now. Do not repeat it.',
});

/**
 * Seed 001: neither a local replay nor a reconciled delivery may skip the current authorization ("二者都不能跳过当前
 * 授权"). Before a result obtained without running the handler now is handed over, the call's checks before the
 * handler run again for the caller as it is now — input, continuation, `authorize` — exactly as for a fresh call.
 * `null` when they pass. When they refuse:
 * - a write that committed cannot be reported as refused (`not_started` would invite a second one): the caller gets
 *   `partial`, outcome `committed`, a receipt without its id, no data, and the warning `DELIVERY_WITHHELD`; the audit
 *   keeps the refusal (`error_detail`, the authorization layer) and the receipt id;
 * - anything else (a replayed read or refusal) did not happen now: the caller gets the refusal itself.
 */
export async function deliveryRefusal(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  rawArgs: unknown,
  delivered: SettledDelivery,
): Promise<ToolExecution | null> {
  const checked = await checkBeforeHandler(tool, rawArgs, ctx);
  if (checked.kind === 'ready') return null;
  const refused = checked.execution;
  const receipt = delivered.committed;
  if (receipt === null) return refused;
  const withheld = reshapeExecution(
    refused,
    (result): ModelResult => ({
      ...result,
      status: 'partial',
      error: null,
      execution: {
        outcome: 'committed',
        delivery: delivered.delivery,
        receipt: { external_id: null, committed_at: receipt.committed_at },
      },
      warnings: [DELIVERY_WITHHELD],
    }),
    { tool, ctx, rawArgs },
  );
  return {
    ...withheld,
    audit: {
      ...withheld.audit,
      downstream: {
        ...withheld.audit.downstream,
        receipt_external_id: receipt.external_id,
        committed_at: receipt.committed_at,
      },
    },
  };
}

/** The receipt of a recorded result whose write committed, else `null`. */
export function committedReceipt(recorded: ModelResult): Receipt | null {
  return recorded.execution.outcome === 'committed' ? recorded.execution.receipt : null;
}
