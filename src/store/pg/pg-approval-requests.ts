import {
  assertSameRequest,
  checkApprovalRequest,
  checkApprovalRequestRef,
  previewOf,
  requestLimit,
  type ApprovalRequest,
  type ApprovalRequestFilter,
  type ApprovalRequestInput,
  type ApprovalRequestRef,
} from '../approval-requests.js';
import { checkText } from '../input-checks.js';
import { StoreError } from '../store-error.js';
import type { ToolEffect } from '../../contract/tool-spec.js';
import { isoOf } from '../timestamps.js';
import type { Queryable } from './sql-runner.js';

interface RequestRow {
  readonly workflow_id: string;
  readonly run_id: string;
  readonly call_id: string;
  readonly tool: string;
  readonly effect: ToolEffect;
  readonly request_sha256: string;
  readonly preview_json: string;
  readonly requested_at: Date;
  readonly expires_at: Date;
}

const REQUEST_COLUMNS =
  'workflow_id, run_id, call_id, tool, effect, request_sha256, preview_json, requested_at, expires_at';

/** Records a request once (see `assertSameRequest`): a retry gets the stored one back, times included. */
export async function recordApprovalRequest(
  db: Queryable,
  input: ApprovalRequestInput,
  now: Date,
): Promise<ApprovalRequest> {
  const checked = checkApprovalRequest(input);
  const { workflowId, runId, callId } = checked.ref;
  const inserted = await db.query<RequestRow>(
    `INSERT INTO ${db.table('ttc_approval_requests')} (${REQUEST_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (workflow_id, run_id, call_id) DO NOTHING RETURNING ${REQUEST_COLUMNS}`,
    [
      workflowId,
      runId,
      callId,
      checked.tool,
      checked.effect,
      checked.requestSha256,
      checked.previewJson,
      now,
      new Date(now.getTime() + checked.waitMs),
    ],
  );
  const row = inserted[0] ?? (await selectRequest(db, checked.ref));
  if (row === undefined) throw new StoreError('internal', { problem: 'approval request row vanished' });
  assertSameRequest(checked, {
    tool: row.tool,
    effect: row.effect,
    requestSha256: row.request_sha256,
    previewJson: row.preview_json,
  });
  return requestOf(row);
}

/** The request of one call, or `null`. */
export async function getApprovalRequest(db: Queryable, ref: ApprovalRequestRef): Promise<ApprovalRequest | null> {
  const row = await selectRequest(db, checkApprovalRequestRef(ref));
  return row === undefined ? null : requestOf(row);
}

/** Requests still waiting at `filter.at` (of one workflow id, when given), oldest first (see `ApprovalRequestFilter`). */
export async function listApprovalRequests(db: Queryable, filter: ApprovalRequestFilter): Promise<ApprovalRequest[]> {
  const params: unknown[] = [filter.at];
  const ofWorkflow =
    filter.workflowId === undefined
      ? ''
      : ` AND r.workflow_id = $${params.push(checkText(filter.workflowId, 'workflowId'))}`;
  params.push(requestLimit(filter));
  const rows = await db.query<RequestRow>(
    `SELECT ${REQUEST_COLUMNS.split(', ')
      .map((column) => `r.${column}`)
      .join(', ')} FROM ${db.table('ttc_approval_requests')} r
      WHERE r.expires_at > $1 AND r.requested_at <= $1${ofWorkflow}
        AND NOT EXISTS (SELECT 1 FROM ${db.table('ttc_audit')} a WHERE a.workflow_id = r.workflow_id AND a.call_id = r.call_id AND a.run_id = r.run_id)
      ORDER BY r.requested_at, r.workflow_id, r.run_id, r.call_id LIMIT $${params.length}`,
    params,
  );
  return rows.map(requestOf);
}

async function selectRequest(db: Queryable, ref: ApprovalRequestRef): Promise<RequestRow | undefined> {
  return (
    await db.query<RequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM ${db.table('ttc_approval_requests')} WHERE workflow_id = $1 AND run_id = $2 AND call_id = $3`,
      [ref.workflowId, ref.runId, ref.callId],
    )
  )[0];
}

function requestOf(row: RequestRow): ApprovalRequest {
  return {
    workflowId: row.workflow_id,
    runId: row.run_id,
    callId: row.call_id,
    tool: row.tool,
    effect: row.effect,
    ...previewOf(row.preview_json),
    requestSha256: row.request_sha256,
    requestedAt: isoOf(row.requested_at),
    expiresAt: isoOf(row.expires_at),
  };
}
