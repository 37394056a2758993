// The workflow API of one tool call: `callTool` with a tool's declaration (typed) or its name, its options, and the
// opt-in recovery paths around the pipeline (a re-query, fallback tools).
import type { InvariantFailurePolicy } from '../write-halt.js';
import type { z } from 'zod';
import type { ToolCallResult } from '../../activities/tool-activity.js';
import type { ProviderContext } from '../../src/contract/bindings.js';
import type { TypedModelResult } from '../../src/contract/model-result.js';
import type { Principal } from '../../src/contract/tool-handler.js';
import type { AnyToolDeclaration } from '../../src/contract/tool-spec.js';
import type { ToolFacts } from '../../src/contract/tool-facts.js';
import { WORKFLOW_CALL_PROVIDER } from '../../src/wire/call-providers.js';
import { nextCallId } from '../call-ids.js';
import type { ReconcilePolicy } from '../reconcile-policy.js';
import type { DispatchOptions } from './dispatch-step.js';
import { describeTools, runCall, type CallState } from './pipeline.js';
import { withRecoveryPaths, type RecoveryOptions } from './recovery-paths.js';

export type { ToolCallResult } from '../../activities/tool-activity.js';

/** A call's result whose `data` is typed by the tool's output schema (see {@link callTool} with a declaration). */
export type TypedToolCallResult<Data> = Omit<ToolCallResult, 'modelResult'> & {
  readonly modelResult: TypedModelResult<Data>;
};

/** The arguments a tool's input schema accepts, as the caller writes them. */
export type ToolArgs<T extends AnyToolDeclaration> = z.input<T['input']>;

/** The data a tool's output schema gives, as a successful call's result carries it. */
export type ToolData<T extends AnyToolDeclaration> = z.output<T['output']>;

/** Options of one tool call from workflow code. */
export interface CallToolOptions extends DispatchOptions, RecoveryOptions {
  /** The trusted caller (from the workflow's own input, never from model output). */
  readonly principal: Principal;
  /** Stable call id; deterministic `call-<n>` when omitted. Pass one when the workflow continues as new. */
  readonly callId?: string;
  /** The model call this answers (for the audit's call binding). @default {@link WORKFLOW_PROVIDER} */
  readonly provider?: ProviderContext;
  /** How long an approval may take before the call fails closed. @default 24 hours */
  readonly approvalTimeoutMs?: number;
  /** Backoff and deadline of reconciliation, should a write's outcome be unknown. @default DEFAULT_RECONCILE_POLICY */
  readonly reconcile?: Partial<ReconcilePolicy>;
  /**
   * The declarations a call made by name is resolved through (a model's calls): a name outside it is refused as
   * `UNKNOWN_TOOL` without asking anyone. Without a catalog, a name is described by the worker, once per run.
   */
  readonly catalog?: readonly AnyToolDeclaration[];
  /** When given, only these tools may run; any other name is refused as `UNKNOWN_TOOL` (declared or not). */
  readonly allowedTools?: readonly string[];
  /**
   * Most calls of each named tool this workflow may make (the lower of this and the tool's own `callLimit` applies);
   * a call past it is refused as `CALL_LIMIT_EXCEEDED` without running. Counted per workflow run: a workflow that
   * continues as new carries `toolCallCounts()` over with `resumeToolCallCounts` (the agent loop does).
   */
  readonly callLimits?: Readonly<Record<string, number>>;
  /**
   * What the run's later writes do once a result of the run failed a business invariant (`INVARIANT_VIOLATION`):
   * `halt_writes` (default; seed 004) refuses them as `WRITES_HALTED` until a person looks, `continue` runs them.
   */
  readonly onInvariantFailure?: InvariantFailurePolicy;
}

/** Provider context for calls made by workflow code rather than on behalf of a model response. */
export const WORKFLOW_PROVIDER: ProviderContext = Object.freeze({
  provider: WORKFLOW_CALL_PROVIDER.provider,
  apiFamily: WORKFLOW_CALL_PROVIDER.apiFamily,
  responseId: null,
  providerCallId: null,
  adapterRevision: WORKFLOW_CALL_PROVIDER.adapterRevision,
});

/**
 * Runs one tool call through the contract and returns its model result and audit reference. Called with a tool's
 * declaration, the arguments are type-checked against its input schema and a successful result's `data` is typed by
 * its output schema, and nothing is asked of the worker before the tool activity runs (unless a person approves the
 * call). Never throws for anything the tool or its arguments do: unknown tools, invalid arguments, refused approvals
 * and failures are catalogued results. A write whose outcome is unknown is never dispatched again blindly: a child
 * workflow reconciles it by idempotency key, and the result says how it was settled.
 */
export async function callTool<T extends AnyToolDeclaration | string>(
  tool: T,
  args: CallArgs<T>,
  options: CallToolOptions,
): Promise<CallResult<T>> {
  const called = typeof tool === 'string' ? { name: tool, facts: undefined } : { name: tool.name, facts: tool.facts };
  return (await callWithRecovery(called, args, options)) as CallResult<T>;
}

/** The arguments of a call: typed by a declaration's input schema, anything (checked by the worker) for a name. */
export type CallArgs<T extends AnyToolDeclaration | string> = T extends AnyToolDeclaration ? ToolArgs<T> : unknown;

/** The result of a call: `data` typed by a declaration's output schema, JSON for a name. */
export type CallResult<T extends AnyToolDeclaration | string> = T extends AnyToolDeclaration
  ? TypedToolCallResult<ToolData<T>>
  : ToolCallResult;

/** How a batch runs one of its calls (see `callTools`). */
export interface BatchedCall {
  /** Why a model's arguments are not a JSON object: the call is refused as `INVALID_ARGUMENTS`, never run. */
  readonly malformedArguments?: string;
  /** Where a write runs when this call is a read whose fallback turns out to be one: behind the batch's writes. */
  readonly writeLane?: <T>(run: () => Promise<T>) => Promise<T>;
}

/**
 * A call, with its recovery paths, by the name it is made under (an alias runs as itself) and the tool's facts: known
 * (a declaration's, or resolved for a batch), `null` (no such tool) or `undefined` (resolved here).
 */
export async function callWithRecovery(
  called: { readonly name: string; readonly facts: ToolFacts | null | undefined },
  args: unknown,
  options: CallToolOptions,
  batched: BatchedCall = {},
): Promise<ToolCallResult> {
  const callId = options.callId ?? nextCallId();
  const { name } = called;
  const facts = called.facts !== undefined ? called.facts : ((await resolveTools([name], options))[0] ?? null);
  const first = await runOne(facts, name, args, callId, options, batched.malformedArguments);
  return withRecoveryPaths(name, callId, first, options, async (fallback, id) => {
    const fallbackFacts = (await resolveTools([fallback], options))[0] ?? null;
    const run = () => runOne(fallbackFacts, fallback, args, id, options);
    const writesAfterRead = facts?.effect === 'read' && fallbackFacts !== null && fallbackFacts.effect !== 'read';
    return writesAfterRead && batched.writeLane !== undefined ? batched.writeLane(run) : run();
  });
}

/**
 * The facts of tools called by name (`null`: no such tool): from the call's catalog when it has one (nothing else
 * counts), else from the worker (once per run for every name not asked before).
 */
export async function resolveTools(
  names: readonly string[],
  options: Pick<CallToolOptions, 'catalog'>,
): Promise<readonly (ToolFacts | null)[]> {
  const { catalog } = options;
  if (catalog !== undefined)
    return names.map(
      (name) =>
        catalog.find((declaration) => declaration.name === name || declaration.aliases.includes(name))?.facts ?? null,
    );
  const described = await describeTools(names);
  return names.map((name) => described.get(name) ?? null);
}

async function runOne(
  facts: ToolFacts | null,
  name: string,
  args: unknown,
  callId: string,
  options: CallToolOptions,
  malformedArguments?: string,
): Promise<ToolCallResult> {
  const state: CallState = {
    request: {
      tool: name,
      args,
      callId,
      principal: options.principal,
      provider: options.provider ?? WORKFLOW_PROVIDER,
    },
    options,
    facts,
    ...(malformedArguments === undefined ? {} : { malformedArguments }),
  };
  return runCall(state);
}
