import { patched } from '@temporalio/workflow';
import type { ToolCallResult } from '../activities/tool-activity.js';
import type { ProviderContext } from '../src/contract/bindings.js';
import { BOUNDED_BATCH_PATCH } from '../src/wire/names.js';
import { mapBounded } from './bounded-map.js';
import { nextCallId } from './call-ids.js';
import { catalogWorkflowFailure } from './catalog-failure.js';
import { prepareCall, runPrepared, type CallToolOptions } from './call-tool.js';
import type { CallToRun } from './known-reads.js';
import { withRecoveryPaths } from './recovery-paths.js';

/** One call of a batch. */
export interface BatchCallRequest {
  readonly name: string;
  readonly args: unknown;
  /** Stable call id (for example the provider's function-call id); deterministic when omitted. */
  readonly callId?: string;
  /** The model call this answers (for the call's audit binding); default: the batch's `provider`. */
  readonly provider?: ProviderContext;
  /** Set for a model's call whose arguments are not a JSON object: refused as `INVALID_ARGUMENTS`, never run. */
  readonly malformedArguments?: string;
}

/** Calls of one batch that may be in flight at once (preparations, then reads), unless the batch says otherwise. */
export const DEFAULT_BATCH_CONCURRENCY = 16;

/** Options of {@link callTools}: those of each call, and how many calls may run at once. */
export interface CallToolsOptions extends Omit<CallToolOptions, 'callId'> {
  /**
   * Most calls in flight at once (default {@link DEFAULT_BATCH_CONCURRENCY}): a model turn of hundreds of reads must
   * not schedule hundreds of activities in one workflow task (Temporal's 4 MiB gRPC limit, the worker's slots).
   */
  readonly maxConcurrency?: number;
}

/** One result of a batch, correlated to its call by call id. */
export interface CorrelatedResult extends ToolCallResult {
  readonly callId: string;
}

/**
 * Runs a batch of calls (one model turn): reads run in parallel, at most `maxConcurrency` at once, writes one at a
 * time in the order given, both correlated by call id; each call's recovery paths (see `RecoveryOptions`) run with
 * it. The results come back in the order of the calls, and the set of result call ids must equal the set of call
 * ids — anything else is a defect and fails the workflow task loudly.
 */
export async function callTools(calls: readonly BatchCallRequest[], options: CallToolsOptions): Promise<CorrelatedResult[]> {
  const callIds = calls.map((call) => call.callId ?? nextCallId());
  if (new Set(callIds).size !== callIds.length) throw catalogWorkflowFailure('INVALID_ARGUMENTS', 'call ids in one batch must be unique');
  const fanOut = batchFanOut(calls.length, options.maxConcurrency ?? DEFAULT_BATCH_CONCURRENCY);
  const callOptions = (call: BatchCallRequest, callId: string) => ({ ...options, callId, ...(call.provider === undefined ? {} : { provider: call.provider }) });
  const prepared = await fanOut(calls, (call, i) =>
    prepareCall(call.name, call.args, callOptions(call, callIds[i] ?? nextCallId()), call.malformedArguments === undefined ? {} : { malformedArguments: call.malformedArguments }),
  );
  const results = new Map<string, ToolCallResult>();
  const isWrite = (p: CallToRun) => p.kind === 'ready' && p.effect !== 'read';
  // A read's fallback that is a write must not run beside the batch's writes: it waits for them (the lane starts as
  // the writes loop, below), then runs one at a time.
  let lane: Promise<unknown> = Promise.resolve();
  const afterWrites = <T>(run: () => Promise<T>): Promise<T> => {
    const next = lane.then(run);
    lane = next.catch(() => undefined);
    return next;
  };
  // Recovery attempts (re-query, fallbacks) stay with their call, so a write's fallback runs before the next write.
  const answer = async (i: number, p: CallToRun): Promise<ToolCallResult> => {
    const call = calls[i];
    // An expected read that turns out to be a write joins the writes' lane, as a read's write fallback does.
    const first = await runPrepared(p, options, afterWrites);
    if (call === undefined) return first;
    const again = async (tool: string, id: string) => {
      const fallback = await prepareCall(tool, call.args, callOptions(call, id));
      const run = () => runPrepared(fallback, options);
      return !isWrite(p) && isWrite(fallback) ? afterWrites(run) : run();
    };
    return withRecoveryPaths(call.name, callIds[i] ?? '', first, options, again);
  };
  const readIndices = prepared.flatMap((p, i) => (isWrite(p) ? [] : [i]));
  const reads = fanOut(readIndices, async (i) => {
    results.set(callIds[i] ?? '', await answer(i, prepared[i] as CallToRun));
  });
  const writes = (async () => {
    for (const [i, p] of prepared.entries()) {
      if (isWrite(p)) results.set(callIds[i] ?? '', await answer(i, p));
    }
  })();
  lane = writes;
  await Promise.all([reads, writes]);
  const missing = callIds.filter((id) => !results.has(id));
  if (missing.length > 0 || results.size !== callIds.length) {
    throw catalogWorkflowFailure('TOOL_ERROR', `results do not match calls (missing: ${missing.join(', ')})`);
  }
  return callIds.map((callId) => ({ callId, ...(results.get(callId) as ToolCallResult) }));
}

/**
 * How a batch fans out: bounded by `limit` when it is larger, else all at once (the same thing). A batch larger than
 * its limit is bounded only in runs that took the patch, so runs recorded before it replay as they ran.
 */
function batchFanOut(size: number, limit: number): <T, R>(items: readonly T[], run: (item: T, index: number) => Promise<R>) => Promise<R[]> {
  if (!(Number.isSafeInteger(limit) && limit > 0)) throw catalogWorkflowFailure('INVALID_ARGUMENTS', 'maxConcurrency must be a positive integer');
  if (size > limit && patched(BOUNDED_BATCH_PATCH)) return (items, run) => mapBounded(items, limit, run);
  return (items, run) => Promise.all(items.map(run));
}
