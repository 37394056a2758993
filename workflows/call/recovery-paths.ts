// The opt-in recovery paths of a call, around the pipeline: one re-query of a read whose answer failed a contract check
// (seed 004: re-query a missing field, never invent it), then fallback tools (seed 003).
import type { ReplacedAttempt, ToolCallResult } from '../../activities/tool-activity.js';
import type { CatalogCode } from '../../src/contract/error-catalog.js';
import { recoveryCallId } from '../../src/wire/ids.js';

/** The opt-in recovery paths of a call. */
export interface RecoveryOptions {
  /**
   * Fallbacks by tool name, tried in order with the same arguments when a call fails in a way another tool may not:
   * its recovery is `choose_another_tool`, or `retry_after` once its own retries are spent — and nothing happened
   * (`not_started`, or a read). A fallback that cannot take the call — its input schema refuses the arguments, or
   * it is not available (`allowedTools`) — is skipped. Fallbacks are ordinary calls: approvals, `allowedTools`
   * and reconciliation apply to them.
   */
  readonly fallbackTools?: Readonly<Record<string, readonly string[]>>;
  /**
   * Reads whose result failed a contract check (`OUTPUT_CONTRACT_VIOLATION`, `INVARIANT_VIOLATION`, `STALE_DATA`)
   * are asked once more: the answer may have been caught mid-update; a second bad answer stands. @default false
   */
  readonly requery?: boolean;
}

/** Runs one more call of the same arguments, to `tool` under `callId`; never throws for what the tool does. */
export type RecoveryCall = (tool: string, callId: string) => Promise<ToolCallResult>;

/** A fallback answering with one of these could not take the call at all (not available here, or not these arguments). */
const CANNOT_TAKE_THE_CALL: readonly string[] = ['INVALID_ARGUMENTS', 'UNKNOWN_TOOL'] satisfies CatalogCode[];

/** Contract failures of a read that a second read may not repeat. */
const REQUERY_CODES: readonly string[] = [
  'OUTPUT_CONTRACT_VIOLATION',
  'INVARIANT_VIOLATION',
  'STALE_DATA',
] satisfies CatalogCode[];

/**
 * A call's result after its recovery paths: one re-query of a read (when asked for), then the tool's fallbacks in
 * order. Deterministic: every decision reads recorded results, and each attempt has a derived call id. The result
 * returned is the last one that answered the call; every other call made is listed in `attempts` — including a
 * fallback that could not take the call, whose refusal is never returned in place of a real answer.
 */
export async function withRecoveryPaths(
  tool: string,
  callId: string,
  first: ToolCallResult,
  options: RecoveryOptions,
  call: RecoveryCall,
): Promise<ToolCallResult> {
  interface Ran {
    readonly result: ToolCallResult;
    readonly callId: string;
  }
  let answer: Ran = { result: first, callId };
  const ran: Ran[] = [answer];
  const attempt = async (name: string, attemptCallId: string): Promise<Ran> => {
    const entry = { result: await call(name, attemptCallId), callId: attemptCallId };
    ran.push(entry);
    return entry;
  };
  if (options.requery === true && requeryable(first))
    answer = await attempt(tool, recoveryCallId(callId, { kind: 'requery' }));
  for (const [i, fallback] of (options.fallbackTools?.[tool] ?? []).entries()) {
    if (!fallbackable(answer.result)) break;
    const entry = await attempt(fallback, recoveryCallId(callId, { kind: 'fallback', n: i + 1 }));
    if (!CANNOT_TAKE_THE_CALL.includes(entry.result.modelResult.error?.code ?? '')) answer = entry;
  }
  if (ran.length === 1) return first;
  return {
    ...answer.result,
    attempts: ran.filter((entry) => entry !== answer).map((entry) => replaced(entry.result, entry.callId)),
  };
}

/** A read that ran and failed a contract check. */
function requeryable({ modelResult }: ToolCallResult): boolean {
  return (
    modelResult.status === 'failed' &&
    modelResult.execution.outcome === 'none' &&
    REQUERY_CODES.includes(modelResult.error?.code ?? '')
  );
}

/** Nothing happened, and the failure says another tool (or, after its retries, any other tool) may do better. */
function fallbackable({ modelResult }: ToolCallResult): boolean {
  const { status, error, execution } = modelResult;
  const nothingHappened = execution.outcome === 'not_started' || execution.outcome === 'none';
  return (
    status === 'failed' &&
    nothingHappened &&
    (error?.recovery === 'choose_another_tool' || error?.recovery === 'retry_after')
  );
}

function replaced(result: ToolCallResult, callId: string): ReplacedAttempt {
  const { modelResult } = result;
  return {
    tool: modelResult.tool,
    callId,
    status: modelResult.status,
    code: modelResult.error?.code ?? null,
    auditId: result.auditRef?.audit_id ?? null,
  };
}
