// What a handler gets (its context and caller) and what it may give back: the facts with what it knows about them,
// an accepted job, or a reconciliation's answer. Split from the definition so handler code reads one small file.
import type { Continuation } from './model-result.js';
import type { PresentationInput } from './presentation.js';

/** The trusted caller of a tool: resolved by the host, never taken from model output. */
export interface Principal {
  readonly tenant: string;
  readonly subject: string;
}

/** What a handler gets besides its arguments. */
export interface HandlerContext {
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  readonly principal: Principal;
  readonly now: () => number;
  /** Aborted when the attempt must stop: cancelled, or (under the plugin) at its own start-to-close deadline. */
  readonly signal?: AbortSignal;
  /**
   * The dispatch fence. A write calls it immediately before the request that takes effect leaves the process (after
   * any preparation, right before `fetch`). Under the plugin it checks, in one statement, that this attempt's claim
   * on the idempotency key is still held, unrevoked and before its deadline; it throws a `ToolError`
   * `TIMEOUT_BEFORE_EXECUTE` (the write did not start) when reconciliation revoked the claim or its deadline passed —
   * let that propagate, and send nothing. Outside the plugin it resolves at once. The plugin passes the same fence
   * itself before a write's handler starts, so a handler that never started never sends; this call is the tighter
   * fence: without it, a worker frozen between the handler's start and its request can still send after a verdict
   * (such a late commit is detected, audited and escalated, not prevented).
   */
  readonly beforeDispatch: () => Promise<void>;
}

/** The dispatch fence of a call with no ledger lease behind it (run outside the plugin, or a reconcile query). */
export function openDispatchFence(): Promise<void> {
  return Promise.resolve();
}

/**
 * A timestamp as handlers may give it, as the outside world sends it: a Date, epoch milliseconds (a number), an ISO
 * 8601 time with its zone (`2026-12-05T05:31:37Z`, `…+01:00`; a date alone is its UTC midnight) or an HTTP date
 * (`Sat, 05 Dec 2026 05:31:37 GMT`, a `Last-Modified` header as it comes). Anything else fails the evidence layer
 * (a receipt's `committedAt` is then unknown: the receipt is kept).
 */
export type TimeInput = Date | number | string;

/** Evidence a handler cites: `supports` are JSON Pointers into its `data`. */
export interface EvidenceInput {
  readonly kind: string;
  readonly locator: string;
  readonly supports: readonly string[];
  readonly quote?: string;
  readonly observedAt?: TimeInput;
  /** Source label of this piece of evidence; defaults to the result's source. */
  readonly source?: string;
}

/** External free text returned alongside the facts: isolated, never merged into `data`. */
export interface UntrustedInput {
  readonly text: string;
  readonly source: string;
}

/** Two or more sources disagreeing on one field of `data`. */
export interface ConflictInput {
  readonly field: string;
  readonly values: readonly { readonly value: unknown; readonly source: string }[];
}

/** The raw bytes a handler received from upstream, kept for the audit digest and the artifact store. */
export interface RawResponse {
  readonly body: Uint8Array | string;
  readonly contentType: string;
}

/** A write's confirmation by the authoritative system. */
export interface SideEffectReceipt {
  readonly externalId: string;
  readonly committedAt?: TimeInput;
}

/** What a handler returns: the facts plus what it knows about them. */
export interface ToolOutput<Data> {
  readonly data: Data;
  readonly observedAt?: TimeInput;
  readonly resourceRevision?: string;
  readonly sourceLabel?: string;
  readonly evidence?: readonly EvidenceInput[];
  readonly untrusted?: readonly UntrustedInput[];
  readonly conflicts?: readonly ConflictInput[];
  /**
   * Where the listing goes on: with an `offset` continuation, the absolute offset of the next item; with a `cursor`
   * continuation, the upstream's cursor (the model sees it sealed). Omitted or `null`: no further page.
   */
  readonly next?: Continuation | null;
  /** Items available from this call's first item on (this page and every later one); `null` = unknown, never 0. */
  readonly availableItems?: number | null;
  readonly appliedArguments?: unknown;
  readonly receipt?: SideEffectReceipt;
  readonly rawResponse?: RawResponse;
  readonly downstream?: { readonly requestRef?: string; readonly statusRef?: string };
  /** Notes for the model about this result (UPPER_SNAKE code, message); redacted and bounded like any handler text. */
  readonly warnings?: readonly { readonly code: string; readonly message: string }[];
  /**
   * How the result may be presented (seed 000): a sentence for the model that says what `data` says, and whether it
   * may be shown to the user. Its figures, dates and ids must be values of `data`, or it is left out.
   */
  readonly presentation?: PresentationInput;
}

/**
 * What a handler returns instead of a {@link ToolOutput} when the authoritative system accepted an asynchronous
 * job and has not finished it: its handle for the job (to poll with) and, when it said, how long to wait first.
 * Only side-effecting tools may; the result is `accepted` and the workflow polls the job (see `poll`).
 */
export interface AcceptedJob {
  readonly accepted: { readonly handle: string; readonly pollAfterMs?: number };
  readonly downstream?: { readonly requestRef?: string; readonly statusRef?: string };
}

/** What the authoritative system says about a write, asked by idempotency key. */
export type ReconcileOutcome<Data> =
  | { readonly state: 'committed'; readonly output: ToolOutput<Data> }
  | { readonly state: 'not_committed' }
  | { readonly state: 'unknown'; readonly reason?: string };
