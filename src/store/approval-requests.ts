import { canonicalJson } from '../contract/canonical-json.js';
import type { JsonValue } from '../contract/json-value.js';
import type { Redaction } from '../contract/redaction.js';
import type { ToolEffect } from '../contract/tool-spec.js';
import { checkCount, checkSha256, checkText } from './input-checks.js';
import { StoreError } from './store-error.js';

/**
 * A call that began to wait for approval, as the worker recorded it for the approver: what the approver decides on
 * and signs for. The worker writes it when the wait starts, with the workflow id and run id of the activity that
 * writes it (never ids its input names) and the preview and digest it computed from the call's arguments itself —
 * not what a workflow answers to a query, which any workflow on the task queue can make up. Written once, never
 * changed; it waits until its deadline or until its call records an attempt, and its workflow must confirm it (see
 * `approvalToSign`).
 */
export interface ApprovalRequest {
  readonly workflowId: string;
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly effect: ToolEffect;
  /** The validated arguments as the approver sees them: each hidden field a marker at its place (`argumentsPreview`). */
  readonly arguments: JsonValue;
  /** Where something was hidden and why: the digest covers what the approver cannot see. */
  readonly hidden: readonly Redaction[];
  /** The digest of the exact request (`request_sha256`): what a decision is bound to. */
  readonly requestSha256: string;
  readonly requestedAt: string;
  /** When the call stops waiting and fails closed: no decision counts after it. */
  readonly expiresAt: string;
}

/** What the worker records: the request without its times, and how long the call waits (the store's clock starts it). */
export interface ApprovalRequestInput extends Omit<ApprovalRequest, 'requestedAt' | 'expiresAt' | 'arguments'> {
  /** Must have a canonical JSON form (else `invalid_input`). */
  readonly arguments: unknown;
  readonly waitMs: number;
}

/**
 * Which requests to list: those still waiting at `at` (of one workflow id, when given), oldest first — within their
 * deadline, and with no attempt of their call recorded in their run yet. A wait ends with a recorded attempt: the
 * tool's (approved) or the settled one (rejected, expired), so a decided call is not listed.
 */
export interface ApprovalRequestFilter {
  readonly at: Date;
  readonly workflowId?: string;
  /** At most this many (default 100). */
  readonly limit?: number;
}

/** One approval request by its call. */
export interface ApprovalRequestRef {
  readonly workflowId: string;
  readonly runId: string;
  readonly callId: string;
}

/** Effects a tool may declare, as the request records them. */
const EFFECTS: readonly string[] = ['read', 'write', 'destructive'] satisfies readonly ToolEffect[];

/** The longest wait a request may record (a year): a longer one is a defect, not a policy. */
const MAX_WAIT_MS = 366 * 24 * 3600_000;

/** A request's input as checked for the store, with the canonical text of its preview. */
export interface CheckedApprovalRequest {
  readonly ref: ApprovalRequestRef;
  readonly tool: string;
  readonly effect: ToolEffect;
  readonly requestSha256: string;
  /** Canonical JSON of `{ arguments, hidden }`, exactly the stored bytes. */
  readonly previewJson: string;
  readonly waitMs: number;
}

/** Checks a request before it is stored; a malformed one is `invalid_input`. */
export function checkApprovalRequest(input: ApprovalRequestInput): CheckedApprovalRequest {
  const ref = checkApprovalRequestRef(input);
  const tool = checkText(input.tool, 'tool');
  if (!EFFECTS.includes(input.effect))
    throw new StoreError('invalid_input', { field: 'effect', problem: 'unknown_effect' });
  const requestSha256 = checkSha256(input.requestSha256, 'requestSha256');
  const waitMs = checkCount(input.waitMs, 'waitMs', 1);
  if (waitMs > MAX_WAIT_MS) throw new StoreError('invalid_input', { field: 'waitMs', problem: 'too_long' });
  if (!Array.isArray(input.hidden)) throw new StoreError('invalid_input', { field: 'hidden', problem: 'not_an_array' });
  const hidden = (input.hidden as readonly unknown[]).map((entry, i) => {
    const { path, reason } = (typeof entry === 'object' && entry !== null ? entry : {}) as {
      path?: unknown;
      reason?: unknown;
    };
    return {
      path: checkText(path, `hidden/${i}/path`, { allowEmpty: true }),
      reason: checkText(reason, `hidden/${i}/reason`),
    };
  });
  let previewJson: string;
  try {
    previewJson = canonicalJson({ arguments: input.arguments, hidden });
  } catch {
    throw new StoreError('invalid_input', { field: 'arguments', problem: 'not_json' });
  }
  checkText(previewJson, 'arguments');
  return { ref, tool, effect: input.effect, requestSha256, previewJson, waitMs };
}

/**
 * A request is written once: a retry of the step that wrote it writes the same again and gets the stored one back
 * (first write wins, its times included); a different request for the same call is refused.
 */
export function assertSameRequest(
  checked: CheckedApprovalRequest,
  stored: {
    readonly tool: string;
    readonly effect: string;
    readonly requestSha256: string;
    readonly previewJson: string;
  },
): void {
  if (
    stored.tool !== checked.tool ||
    stored.effect !== checked.effect ||
    stored.requestSha256 !== checked.requestSha256 ||
    stored.previewJson !== checked.previewJson
  ) {
    throw new StoreError('approval_request_reused', { ...checked.ref });
  }
}

/** Checks the call a request is looked up by. */
export function checkApprovalRequestRef(ref: ApprovalRequestRef): ApprovalRequestRef {
  return {
    workflowId: checkText(ref.workflowId, 'workflowId'),
    runId: checkText(ref.runId, 'runId'),
    callId: checkText(ref.callId, 'callId'),
  };
}

/** The stored preview, back as the approver sees it. */
export function previewOf(previewJson: string): Pick<ApprovalRequest, 'arguments' | 'hidden'> {
  const parsed = JSON.parse(previewJson) as { arguments: JsonValue; hidden: Redaction[] };
  return { arguments: parsed.arguments, hidden: parsed.hidden };
}

/** The filter's limit, checked (default 100, at most 1000). */
export function requestLimit(filter: ApprovalRequestFilter): number {
  const limit = checkCount(filter.limit ?? 100, 'limit', 1);
  if (limit > 1000) throw new StoreError('invalid_input', { field: 'limit', problem: 'too_large' });
  return limit;
}
