import type { Client } from '@temporalio/client';
import type { DecisionKey } from '../decisions/keys.js';
import { signDecision } from '../decisions/sign.js';
import type { DecisionRecord, ReconcileStatus, ResolveOutcomeSignal } from '../temporal/index.js';
import { submitResolution } from '../temporal/approval-client.js';
import { reconcileWorkflowId } from '../wire/ids.js';
import { RECONCILE_STATE_QUERY } from '../wire/names.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { describeDecision, refusedBecause } from './decision-text.js';
import { toCliError } from './temporal-errors.js';

/** What `resolve` needs: the idempotency key of the escalated call and the human's answer. */
export type ResolveInput = { readonly idempotencyKey: string; readonly resolvedBy: string; readonly note?: string } & (
  { readonly outcome: 'committed'; readonly externalId: string } | { readonly outcome: 'not_committed' }
);

/** What the CLI prints after its resolution settled the call. */
export interface ResolveOutput {
  readonly workflowId: string;
  readonly idempotencyKey: string;
  readonly outcome: ResolveOutcomeSignal['outcome'];
  readonly accepted: true;
  /** The resolution as the workflow recorded it. */
  readonly recorded: DecisionRecord;
}

/**
 * Resolves the escalated reconciliation of a key (its workflow id derives from the key). It reads the state first
 * and refuses, saying why, unless the reconciliation waits for a person (`escalated`): while the authoritative system
 * is still being asked, a person's word would override a receipt that may yet come. Then it signs the resolution
 * for exactly that reconciliation run and key, and sends it through the resolution update.
 */
export async function resolveOutcome(
  client: Client,
  input: ResolveInput,
  signingKey: DecisionKey | null,
): Promise<ResolveOutput> {
  const workflowId = reconcileWorkflowId(input.idempotencyKey);
  try {
    const status = await client.workflow.getHandle(workflowId).query<ReconcileStatus>(RECONCILE_STATE_QUERY);
    if (status.resolution !== null)
      throw new CliError(
        `the reconciliation of ${input.idempotencyKey} is already resolved: ${describeDecision(status.resolution)}`,
        EXIT_CODES.refused,
      );
    if (status.state !== 'escalated')
      throw new CliError(notEscalated(input.idempotencyKey, status), EXIT_CODES.refused);
    const externalId = input.outcome === 'committed' ? input.externalId : undefined;
    const token =
      signingKey === null
        ? undefined
        : signDecision(
            {
              kind: 'resolution',
              workflowId: status.workflowId,
              runId: status.runId,
              idempotencyKey: input.idempotencyKey,
              decision: input.outcome,
              decidedBy: input.resolvedBy,
              ...(externalId === undefined ? {} : { externalId }),
              ...(input.note === undefined ? {} : { note: input.note }),
            },
            signingKey,
          );
    const answer = await submitResolution(client, input.idempotencyKey, {
      outcome: input.outcome,
      resolvedBy: input.resolvedBy,
      ...(externalId === undefined ? {} : { externalId }),
      ...(input.note === undefined ? {} : { note: input.note }),
      ...(token === undefined ? {} : { token }),
    });
    if (!answer.accepted)
      throw new CliError(
        `the reconciliation of ${input.idempotencyKey} did not take this resolution: ${refusedBecause(answer)}`,
        EXIT_CODES.refused,
      );
    return {
      workflowId,
      idempotencyKey: input.idempotencyKey,
      outcome: input.outcome,
      accepted: true,
      recorded: answer.decision,
    };
  } catch (error) {
    throw toCliError(error, workflowId);
  }
}

function notEscalated(key: string, status: ReconcileStatus): string {
  const finding = status.lastFinding === null ? '' : `, last finding: ${status.lastFinding}`;
  const why =
    status.state === 'reconciling' || status.state === 'redispatching'
      ? `it is still asking the authoritative system (${status.queries} queries so far${finding}); a resolution counts only once it is escalated — wait for TtcReconcileState = "escalated" (\`tool-contract unsettled\`)`
      : `it is settled (${status.state}) without a person`;
  return `the reconciliation of ${key} is '${status.state}', not 'escalated': ${why}`;
}
