import type { ToolCallResult } from '../activities/tool-activity.js';
import type { ProviderContext } from '../src/contract/bindings.js';
import { mapBounded } from './bounded-map.js';
import { nextCallId } from './call-ids.js';
import { catalogWorkflowFailure } from './catalog-failure.js';
import { callWithRecovery, resolveTools, type CallToolOptions } from './call/call-tool.js';
import { serialLane } from './serial-lane.js';

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

/** Calls of one batch that may be in flight at once, unless the batch says otherwise. */
export const DEFAULT_BATCH_CONCURRENCY = 16;

/** Options of {@link callTools}: those of each call, and how many calls may run at once. */
export interface CallToolsOptions extends Omit<CallToolOptions, 'callId'> {
  /**
   * Most calls in flight at once: a model turn of hundreds of reads must not schedule hundreds of activities in one
   * workflow task (Temporal's 4 MiB gRPC limit, the worker's slots). @default {@link DEFAULT_BATCH_CONCURRENCY}
   */
  readonly maxConcurrency?: number;
}

/** One result of a batch, correlated to its call by call id. */
export interface CorrelatedResult extends ToolCallResult {
  readonly callId: string;
}

/**
 * Runs a batch of calls (one model turn) by tool name, each resolved through `options.catalog` (or described by the
 * worker, once per run, for the names of the batch together): reads run in parallel, at most `maxConcurrency` at
 * once, writes one at a time in the order given, both correlated by call id; each call's recovery paths run with it,
 * and a read's fallback that is a write waits for the batch's writes. The results come back in the order of the
 * calls, and the set of result call ids must equal the set of call ids — anything else is a defect and fails the
 * workflow task loudly.
 */
export async function callTools(
  calls: readonly BatchCallRequest[],
  options: CallToolsOptions,
): Promise<CorrelatedResult[]> {
  const callIds = calls.map((call) => call.callId ?? nextCallId());
  if (new Set(callIds).size !== callIds.length)
    throw catalogWorkflowFailure('INVALID_ARGUMENTS', 'call ids in one batch must be unique');
  const limit = options.maxConcurrency ?? DEFAULT_BATCH_CONCURRENCY;
  if (!(Number.isSafeInteger(limit) && limit > 0))
    throw catalogWorkflowFailure('INVALID_ARGUMENTS', 'maxConcurrency must be a positive integer');
  const facts = await resolveTools(
    calls.map((call) => call.name),
    options,
  );
  const isWrite = (i: number) => facts[i]?.effect !== undefined && facts[i]?.effect !== 'read';
  // A write (or a read's fallback that is a write) runs alone: after every write before it, one at a time.
  const inLane = serialLane();
  const run = (i: number): Promise<ToolCallResult> => {
    const call = calls[i] as BatchCallRequest;
    const callOptions = {
      ...options,
      callId: callIds[i] as string,
      ...(call.provider === undefined ? {} : { provider: call.provider }),
    };
    return callWithRecovery({ name: call.name, facts: facts[i] ?? null }, call.args, callOptions, {
      ...(call.malformedArguments === undefined ? {} : { malformedArguments: call.malformedArguments }),
      writeLane: inLane,
    });
  };
  const results = new Map<string, ToolCallResult>();
  const indices = calls.map((_, i) => i);
  const writes = indices
    .filter(isWrite)
    .map((i) => inLane(async () => results.set(callIds[i] as string, await run(i))));
  await Promise.all([
    ...writes,
    mapBounded(
      indices.filter((i) => !isWrite(i)),
      limit,
      async (i) => results.set(callIds[i] as string, await run(i)),
    ),
  ]);
  const missing = callIds.filter((id) => !results.has(id));
  if (missing.length > 0 || results.size !== callIds.length)
    throw catalogWorkflowFailure('TOOL_ERROR', `results do not match calls (missing: ${missing.join(', ')})`);
  return callIds.map((callId) => ({ callId, ...(results.get(callId) as ToolCallResult) }));
}
