import type { ToolEffect } from '../src/contract/tool-spec.js';

/**
 * The hook through which the worker reports tool calls to a tracing system. The package itself depends on no
 * tracing library: `temporal-tool-contract/otel` implements this with OpenTelemetry, and a host may implement it for
 * anything else. Every event carries names, codes and ids only — never arguments, results or anything the
 * redaction engine would hide — so a span exporter cannot leak what the funnel withheld from the model.
 */
export interface ToolCallTelemetry {
  /**
   * One attempt of a tool call has its result (the funnel settled it, or the ledger replayed or refused it).
   * Called in the tool activity, so the tracing context the host's activity interceptors set up is the active one.
   * Returns the reference of the span it made for the call, which reconciliation and human resolution link to.
   */
  toolCallSettled(call: SettledToolCall): CallSpanRef | null;
  /** A reconciliation step — one query of the authoritative system, or a person's resolution — about an earlier call. */
  reconciliationStep(step: ReconciliationStep): void;
}

/** A span as another span links to it (W3C trace-context ids, lower-case hex): small enough to travel in history. */
export interface CallSpanRef {
  readonly traceId: string;
  readonly spanId: string;
}

/** What one attempt of a tool call ended as. */
export interface SettledToolCall {
  readonly tool: string;
  readonly effect: ToolEffect;
  readonly callId: string;
  /** The activity attempt (1-based). */
  readonly attempt: number;
  /** The model result's status; `failed` when the attempt threw (a retryable read, a write that could not be recorded). */
  readonly status: string;
  /** The catalog code of the model result's error, or the failure type the attempt threw; `null` without an error. */
  readonly errorCode: string | null;
  /** How the result was delivered (`fresh`, `local_replay`, …); `null` when the attempt threw. */
  readonly delivery: string | null;
  /** The side effect's outcome (`committed`, `unknown`, …); `null` when the attempt threw. */
  readonly outcome: string | null;
  /** Epoch milliseconds: when the worker took the attempt, and when its result was known. */
  readonly startedAtMs: number;
  readonly endedAtMs: number;
}

/** One step of settling a call whose outcome was unknown. */
export interface ReconciliationStep {
  readonly kind: 'query' | 'resolution';
  readonly tool: string;
  readonly callId: string;
  /** What the step found or decided: `committed`, `not_committed` or `unknown`. */
  readonly finding: string;
  /** The query's number (1-based); `null` for a resolution. */
  readonly attempt: number | null;
  /** The span of the call this step settles, when the call's result carried one. */
  readonly settles: CallSpanRef | null;
  readonly startedAtMs: number;
  readonly endedAtMs: number;
}
