import type { Client } from '@temporalio/client';
import type { ResolveOutcomeSignal } from '../temporal/index.js';
import { reconcileWorkflowId } from '../wire/ids.js';
import { RESOLVE_OUTCOME_SIGNAL } from '../wire/names.js';
import { toCliError } from './temporal-errors.js';

/** What `resolve` needs: the idempotency key of the escalated call and the human's answer. */
export type ResolveInput = { readonly idempotencyKey: string; readonly resolvedBy: string; readonly note?: string } & (
  | { readonly outcome: 'committed'; readonly externalId: string }
  | { readonly outcome: 'not_committed' }
);

/** What the CLI prints after a resolution was sent. */
export interface ResolveOutput {
  readonly workflowId: string;
  readonly idempotencyKey: string;
  readonly outcome: ResolveOutcomeSignal['outcome'];
  readonly signalled: true;
}

/**
 * Sends the resolution signal to the reconciliation workflow of a key (its id derives from the key). The workflow
 * must be running: a signal to a finished or unknown workflow is reported as not found.
 */
export async function resolveOutcome(client: Client, input: ResolveInput): Promise<ResolveOutput> {
  const workflowId = reconcileWorkflowId(input.idempotencyKey);
  const signal: ResolveOutcomeSignal = {
    outcome: input.outcome,
    resolvedBy: input.resolvedBy,
    ...(input.outcome === 'committed' ? { externalId: input.externalId } : {}),
    ...(input.note === undefined ? {} : { note: input.note }),
  };
  try {
    await client.workflow.getHandle(workflowId).signal(RESOLVE_OUTCOME_SIGNAL, signal);
  } catch (error) {
    throw toCliError(error, workflowId);
  }
  return { workflowId, idempotencyKey: input.idempotencyKey, outcome: input.outcome, signalled: true };
}
