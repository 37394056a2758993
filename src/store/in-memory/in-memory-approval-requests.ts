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
import { canonicalJson } from '../../contract/canonical-json.js';
import { checkText } from '../input-checks.js';
import { copy, type InMemoryTables } from './in-memory-tables.js';

/** Records a request once (see `assertSameRequest`): a retry gets the stored one back, times included. */
export function recordApprovalRequest(tables: InMemoryTables, input: ApprovalRequestInput, now: Date): ApprovalRequest {
  const checked = checkApprovalRequest(input);
  const key = keyOf(checked.ref);
  const stored = tables.approvalRequests.get(key);
  if (stored !== undefined) {
    assertSameRequest(checked, {
      ...stored,
      previewJson: canonicalJson({ arguments: stored.arguments, hidden: stored.hidden }),
    });
    return copy(stored);
  }
  const request: ApprovalRequest = {
    ...checked.ref,
    tool: checked.tool,
    effect: checked.effect,
    ...previewOf(checked.previewJson),
    requestSha256: checked.requestSha256,
    requestedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + checked.waitMs).toISOString(),
  };
  tables.approvalRequests.set(key, request);
  return copy(request);
}

/** The request of one call, or `null`. */
export function getApprovalRequest(tables: InMemoryTables, ref: ApprovalRequestRef): ApprovalRequest | null {
  const stored = tables.approvalRequests.get(keyOf(checkApprovalRequestRef(ref)));
  return stored === undefined ? null : copy(stored);
}

/** Requests still waiting at `filter.at` (of one workflow id, when given), oldest first (see `ApprovalRequestFilter`). */
export function listApprovalRequests(tables: InMemoryTables, filter: ApprovalRequestFilter): ApprovalRequest[] {
  const workflowId = filter.workflowId === undefined ? undefined : checkText(filter.workflowId, 'workflowId');
  const at = filter.at.getTime();
  const attempted = new Set(
    [...tables.audits.values()].map((audit) =>
      keyOf({ workflowId: audit.workflowId, runId: audit.runId ?? '', callId: audit.callId }),
    ),
  );
  const waiting = [...tables.approvalRequests.values()].filter(
    (request) =>
      Date.parse(request.expiresAt) > at &&
      Date.parse(request.requestedAt) <= at &&
      (workflowId === undefined || request.workflowId === workflowId) &&
      !attempted.has(keyOf(request)),
  );
  const order = (r: ApprovalRequest) => [r.requestedAt, r.workflowId, r.runId, r.callId];
  waiting.sort((a, b) => compare(order(a), order(b)));
  return waiting.slice(0, requestLimit(filter)).map(copy);
}

/** The call's key in the table (columns joined with U+0000, which no text column holds). */
function keyOf(ref: ApprovalRequestRef): string {
  return `${ref.workflowId}\u0000${ref.runId}\u0000${ref.callId}`;
}

function compare(a: readonly string[], b: readonly string[]): number {
  for (const [i, value] of a.entries()) {
    const other = b[i] ?? '';
    if (value !== other) return value < other ? -1 : 1;
  }
  return 0;
}
