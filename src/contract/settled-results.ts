import { deliveryRefusal } from './authorized-delivery.js';
import { catalogFailure } from './call-failure.js';
import { callRedactor } from './call-redactor.js';
import type { ToolOutput } from './tool-handler.js';
import type { AnyToolImplementation } from './tool-spec.js';
import { NOT_COMMITTED_MESSAGES } from './error-catalog.js';
import { executeTool, failedExecution, type ToolExecution } from './execute-tool.js';
import type { ExecutionContext } from './execution-context.js';
import { receiptOf } from './funnel/receipt-step.js';
import type { Delivery, ModelResult } from './model-result.js';
import { receiptForModel } from './receipt-visibility.js';
import type { Redaction } from './redaction.js';
import { asUnknown, reshapeExecution } from './reshape-execution.js';
import { wellFormedPrefix } from './truncation.js';

/**
 * How a call looks when its side effect was settled some other way than by running its handler now: replayed from
 * the ledger, unknown, confirmed not committed, confirmed committed by the authoritative system's receipt, or
 * confirmed either way by a person. Every shape here is a normal execution (model result and audit) whose audit
 * bindings still verify, so hosts handle one kind of result however the call ended.
 */

export { reshapeExecution, type TrustedCall } from './reshape-execution.js';

/** A person's answer to an escalated reconciliation. */
export interface HumanResolution {
  readonly outcome: 'committed' | 'not_committed';
  /** The authoritative system's id for the committed write (required for `committed`). */
  readonly externalId: string | null;
  readonly resolvedBy: string;
  readonly note: string | null;
}

/** The recorded result as a replay: the same facts, marked as delivered from the local ledger. */
export function asLocalReplay(modelResult: ModelResult): ModelResult {
  return withDelivery(modelResult, 'local_replay');
}

/**
 * A write whose fate is not known without having run it now (its key was claimed by an attempt that never
 * settled, or another workflow reconciles it): `status: unknown`, `outcome: unknown`, `OUTCOME_UNKNOWN` — the
 * caller must reconcile, not retry.
 */
export function withOutcomeUnknown(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  rawArgs: unknown,
  detail: Record<string, unknown>,
): ToolExecution {
  const failed = failedExecution(tool, ctx, catalogFailure('OUTCOME_UNKNOWN', 'side_effect', detail), rawArgs);
  return reshapeExecution(failed, asUnknown, { tool, ctx, rawArgs });
}

/**
 * Why a write's outcome was unknown before it was settled, as the workflow saw its attempt: it timed out, the tool
 * answered with an error (or an answer that could not be verified), the attempt ended without any answer (a lost
 * worker), or the tool started an asynchronous job (`accepted`). `unknown` when the workflow did not record it (one
 * started before this was recorded).
 */
export type UnsettledBecause = 'timeout' | 'error' | 'lost' | 'accepted' | 'unknown';

/** Who established that a write did not happen. */
export type NotCommittedConfirmation =
  /** The authoritative system, asked by idempotency key, found no such write. */
  | { readonly by: 'reconciliation'; readonly unsettledBecause: UnsettledBecause }
  | { readonly by: 'human'; readonly resolvedBy: string; readonly note: string | null };

/**
 * The write did not happen: `failed`, `not_started`, `NOT_COMMITTED`. Delivered `confirmed_absent` when the
 * authoritative system said so (it found nothing, so there is no receipt to speak of), `human_resolved` when a person
 * did. The message says what came before; the audit records it as `unsettled_because`.
 */
export function notCommitted(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  rawArgs: unknown,
  confirmation: NotCommittedConfirmation,
): ToolExecution {
  const [delivery, message, detail] =
    confirmation.by === 'human'
      ? [
          'human_resolved' as const,
          NOT_COMMITTED_MESSAGES.human,
          { resolved_by: confirmation.resolvedBy, note: confirmation.note },
        ]
      : [
          'confirmed_absent' as const,
          NOT_COMMITTED_MESSAGES[confirmation.unsettledBecause],
          { finding: 'not_committed', unsettled_because: confirmation.unsettledBecause },
        ];
  const failure = catalogFailure('NOT_COMMITTED', 'side_effect', detail, { message });
  return reshapeExecution(failedExecution(tool, ctx, failure, rawArgs), (result) => withDelivery(result, delivery), {
    tool,
    ctx,
    rawArgs,
  });
}

/**
 * The authoritative system confirmed the write and returned its output: the output runs through the whole funnel
 * (so a reconciled result is as validated as a fresh one) and is delivered as `receipt_reconciled` — to a caller the
 * tool still authorizes now (seed 001). One it no longer authorizes learns that the write took effect, and nothing
 * else (see `deliveryRefusal`): the write happened, so it is never told the call did not start.
 */
export async function receiptReconciled(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  rawArgs: unknown,
  output: ToolOutput<unknown>,
): Promise<ToolExecution> {
  const trusted = { tool, ctx, rawArgs };
  // Committed by the system's own word, even when its answer carries no receipt to show.
  const receipt = receiptOf(tool, (output as { receipt?: unknown } | null)?.receipt) ?? {
    external_id: null,
    committed_at: null,
  };
  const refusal = await deliveryRefusal(tool, ctx, rawArgs, { delivery: 'receipt_reconciled', committed: receipt });
  if (refusal !== null) return refusal;
  // Just asked: the funnel below need not ask `authorize` a second time. Nor re-read the write's premises: it happened.
  const replayed: AnyToolImplementation = {
    ...without(tool, ['authorize', 'preconditions']),
    handler: () => Promise.resolve(output),
  };
  const fresh = await executeTool(replayed, rawArgs, ctx);
  return reshapeExecution(fresh, (result) => withDelivery(result, 'receipt_reconciled'), trusted);
}

/**
 * A person confirmed the write took effect: `partial` (it happened; its output was never verified), `committed`,
 * `human_resolved`, with the receipt the person gave — bounded and redacted like any receipt a model sees (a signal
 * sender is not trusted). No data: nothing the tool returned was validated.
 */
export function humanCommitted(
  tool: AnyToolImplementation,
  ctx: ExecutionContext,
  rawArgs: unknown,
  resolution: HumanResolution,
): ToolExecution {
  const failed = failedExecution(
    tool,
    ctx,
    catalogFailure('OUTCOME_UNKNOWN', 'side_effect', { resolved_by: resolution.resolvedBy, note: resolution.note }),
    rawArgs,
  );
  const redactions: Redaction[] = [];
  const given =
    typeof resolution.externalId === 'string' && resolution.externalId !== ''
      ? wellFormedPrefix(resolution.externalId, 256)
      : 'unrecorded';
  const receipt = receiptForModel({ external_id: given, committed_at: null }, tool.receiptVisibility, (id) =>
    callRedactor(tool, ctx).text(id, '/execution/receipt/external_id', redactions),
  );
  const settled = reshapeExecution(
    failed,
    (result) => ({
      ...result,
      status: 'partial',
      error: null,
      execution: { outcome: 'committed', delivery: 'human_resolved', receipt },
      warnings: [
        {
          code: 'HUMAN_RESOLVED',
          message: 'A person confirmed this operation took effect; its output was not verified. Do not repeat it.',
        },
      ],
    }),
    { tool, ctx, rawArgs },
  );
  return redactions.length === 0
    ? settled
    : { ...settled, audit: { ...settled.audit, redactions: [...settled.audit.redactions, ...redactions] } };
}

function without(tool: AnyToolImplementation, keys: readonly string[]): AnyToolImplementation {
  return Object.fromEntries(Object.entries(tool).filter(([key]) => !keys.includes(key))) as AnyToolImplementation;
}

function withDelivery(result: ModelResult, delivery: Delivery): ModelResult {
  return { ...result, execution: { ...result.execution, delivery } };
}
