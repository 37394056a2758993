// The workflow side of one tool call, as one ordered list of steps over one state record (STYLE 11): the activity
// side's order lives in the funnel (src/contract/funnel/run-funnel.ts); this is the order around it. Each step either
// passes the call on, with what it established, or ends it with a result — a refused call ends with a catalogued,
// audited result, never a throw.
import { isCancellation, scheduleLocalActivity, workflowInfo } from '@temporalio/workflow';
import type { DescribeToolsInput } from '../../activities/describe-tools.js';
import type { VerifiedDecision } from '../../activities/verify-decision.js';
import type { ToolCallResult } from '../../activities/tool-activity.js';
import { identifyCall, type CallIdentity, type CallRequest } from '../../src/contract/call-identity.js';
import { nonRetryableCodes } from '../../src/contract/error-catalog.js';
import type { ToolFacts } from '../../src/contract/tool-facts.js';
import { DESCRIBE_TOOLS_ACTIVITY } from '../../src/wire/names.js';
import { settle } from '../settle.js';
import { noteInvariantFailure, writesHaltedBy } from '../write-halt.js';
import { approveIfRequired } from './approval-step.js';
import type { CallToolOptions } from './call-tool.js';
import { dispatchCall, reconcileCancelledWrite, reconcileUnknownWrite, type UnknownDispatch } from './dispatch-step.js';

/** One call on its way: what was asked, then what the steps established. */
export interface CallState {
  readonly request: CallRequest;
  readonly options: CallToolOptions;
  /** The tool, as workflow code knows it: from the declaration the call was made with, else from the catalog. */
  readonly facts: ToolFacts | null;
  /** Why a model's arguments are not a JSON object: the call is refused as `INVALID_ARGUMENTS`, never run. */
  readonly malformedArguments?: string;
  /** Fixed by `identify`. */
  readonly identity?: CallIdentity;
  /** The approval it runs on, set by `approve` for a tool that requires one. */
  readonly approval?: VerifiedDecision;
  /** The activity summary: secret-free (the approval preview's arguments when a person saw them, else none). */
  readonly summary?: string;
  /** Set by `dispatch` for a write whose outcome it left unknown. */
  readonly unknown?: UnknownDispatch;
}

/** What a step does with the call: passes it on (with what it established) or ends it. */
export type StepOutcome = { readonly next: CallState } | { readonly done: ToolCallResult };
type Step = (state: CallState) => Promise<StepOutcome>;

/**
 * The steps of a call, in order. Only `approve` may ask the worker anything before the tool activity runs, and only
 * for a tool a person decides; every other call goes straight to its activity, which checks everything again.
 */
const PIPELINE: readonly (readonly [name: string, step: Step])[] = [
  // Nothing of an unknown (or not allowed) tool runs; its refusal is recorded like any result.
  ['known', refuseUnknownTool],
  // The identity is fixed before anything is counted, asked or sent; unreadable arguments are refused here.
  ['identify', identify],
  // A run whose data failed a business invariant writes nothing more until a person looks (write-halt.ts).
  ['halt', refuseHaltedWrite],
  // Counted before any approval is asked for: a call past its limit must not even wait for a person.
  ['limit', admitWithinLimit],
  ['approve', approveIfRequired],
  ['dispatch', dispatchOrReconcileOnCancel],
  // A write whose outcome is unknown is reconciled by its key in a child workflow, never sent again blindly.
  ['reconcile', reconcileUnknownWrite],
];

/** Runs a call through the pipeline to its result. */
export async function runCall(state: CallState): Promise<ToolCallResult> {
  let current = state;
  for (const [, step] of PIPELINE) {
    const outcome = await step(current);
    if ('done' in outcome) {
      noteInvariantFailure(outcome.done, state.request.callId);
      return outcome.done;
    }
    current = outcome.next;
  }
  throw new Error('unreachable: the reconcile step ends every call');
}

/**
 * The tool activity. A workflow cancelled while its write was scheduled or running does not know whether the write
 * took effect: it is reconciled like a lost attempt (never sent again — whoever cancelled did not want it), and the
 * cancel goes on.
 */
async function dispatchOrReconcileOnCancel(state: CallState): Promise<StepOutcome> {
  try {
    return await dispatchCall(state);
  } catch (error) {
    if (isCancellation(error) && state.facts?.effect !== 'read') await reconcileCancelledWrite(state);
    throw error;
  }
}

async function refuseUnknownTool(state: CallState): Promise<StepOutcome> {
  const allowed = state.options.allowedTools?.includes(state.request.tool) ?? true;
  if (state.facts !== null && allowed) return { next: state };
  const operationId = `${workflowInfo().workflowId}:${state.request.callId}`;
  return {
    done: await settle({ ...state.request, operationId, idempotencyKey: operationId }, { kind: 'unknown_tool' }),
  };
}

async function identify(state: CallState): Promise<StepOutcome> {
  const facts = state.facts as ToolFacts;
  const identified = identifyCall(facts, state.request, workflowInfo().workflowId);
  if (state.malformedArguments !== undefined)
    return { done: await settle(identified.identity, { kind: 'invalid_arguments', reason: state.malformedArguments }) };
  if (!identified.ok)
    return { done: await settle(identified.identity, { kind: 'invalid_arguments', reason: identified.reason }) };
  return {
    next: {
      ...state,
      identity: identified.identity,
      summary: `${state.request.tool} [${facts.effect}] ${state.request.callId}`,
    },
  };
}

async function refuseHaltedWrite(state: CallState): Promise<StepOutcome> {
  const haltedBy =
    state.facts?.effect !== 'read' && state.options.onInvariantFailure !== 'continue' ? writesHaltedBy() : null;
  if (haltedBy === null) return { next: state };
  return { done: await settle(state.identity as CallIdentity, { kind: 'writes_halted', haltedBy }) };
}

async function admitWithinLimit(state: CallState): Promise<StepOutcome> {
  const facts = state.facts as ToolFacts;
  const limits = [
    facts.callLimit,
    state.options.callLimits?.[facts.name],
    state.options.callLimits?.[state.request.tool],
  ].filter((limit): limit is number => typeof limit === 'number');
  const limit = limits.length === 0 ? undefined : Math.min(...limits);
  if (limit !== undefined && callsMade(facts.name) >= limit)
    return { done: await settle(state.identity as CallIdentity, { kind: 'call_limit', limit }) };
  countCall(facts.name);
  return { next: state };
}

// Module state is per workflow execution in the TypeScript SDK's sandbox, filled in workflow-code order from recorded
// results, so it is the same on every replay.
const admitted = new Map<string, number>();
const described = new Map<string, ToolFacts | null>();

/**
 * Calls of each tool this workflow run has admitted (under the tool's own name, whatever name or alias a call used),
 * including those a continued run inherited: carry it to the next run with {@link resumeToolCallCounts} when a
 * workflow continues as new, or the limits start over.
 */
export function toolCallCounts(): Record<string, number> {
  return Object.fromEntries(admitted);
}

/** Starts a continued run with the counts its predecessor reached (see {@link toolCallCounts}). */
export function resumeToolCallCounts(counts: Readonly<Record<string, number>>): void {
  for (const [tool, count] of Object.entries(counts)) {
    if (Number.isSafeInteger(count) && count > 0) admitted.set(tool, Math.max(admitted.get(tool) ?? 0, count));
  }
}

function callsMade(tool: string): number {
  return admitted.get(tool) ?? 0;
}

function countCall(tool: string): void {
  admitted.set(tool, callsMade(tool) + 1);
}

/**
 * The facts of tools named at run time (a model's calls, the MCP server's), from the worker that serves them: asked
 * once per run for the names not asked before, in one local activity, and remembered (the answer is recorded).
 * `null` for a name no worker tool answers to. A call made with a declaration never asks.
 */
export async function describeTools(names: readonly string[]): Promise<ReadonlyMap<string, ToolFacts | null>> {
  const unknown = [...new Set(names)].filter((name) => !described.has(name));
  if (unknown.length > 0) {
    const input: DescribeToolsInput = { names: unknown };
    const facts = await scheduleLocalActivity<readonly (ToolFacts | null)[]>(DESCRIBE_TOOLS_ACTIVITY, [input], {
      startToCloseTimeout: '30s',
      retry: { maximumAttempts: 5, nonRetryableErrorTypes: nonRetryableCodes() },
    });
    unknown.forEach((name, i) => described.set(name, facts[i] ?? null));
  }
  return new Map(names.map((name) => [name, described.get(name) ?? null]));
}
