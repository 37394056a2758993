import { proxyActivities } from '@temporalio/workflow';
import type { createApplyStatePatch, StatePatchResult, WorkflowStatePatch } from '../activities/state-patch.js';
import { nonRetryableCodes } from '../src/contract/error-catalog.js';
import { STATE_PATCH_ACTIVITY } from '../src/wire/names.js';
import { catalogWorkflowFailure } from './catalog-failure.js';

export type { StatePatchResult, WorkflowStatePatch } from '../activities/state-patch.js';

type Activities = { [STATE_PATCH_ACTIVITY]: ReturnType<typeof createApplyStatePatch> };

/**
 * Writes a state change of this workflow, derived from its tool results, to Postgres, citing the evidence ids it
 * rests on (the worker fixes the workflow: a patch is always of the state of the workflow that makes it). Idempotent
 * by `patchId` within the workflow (a retried activity never duplicates; another workflow's patch of the same id is
 * its own); a stale `expectedVersion` fails with type `STATUS_CONFLICT`, it
 * never overwrites. Its source and times are the cited evidence's (left out, they are taken from it); others fail
 * with type `INVALID_ARGUMENTS`.
 */
export async function applyStatePatch(patch: WorkflowStatePatch): Promise<StatePatchResult> {
  if (patch.evidenceIds.length === 0)
    throw catalogWorkflowFailure('INVALID_ARGUMENTS', 'a state patch must cite evidence');
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 10, nonRetryableErrorTypes: nonRetryableCodes() },
  });
  return activities[STATE_PATCH_ACTIVITY](patch);
}
