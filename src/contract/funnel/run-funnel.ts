import { catalogFailure, describeThrown } from '../call-failure.js';
import type { AnyToolImplementation } from '../tool-spec.js';
import type { ExecutionContext } from '../execution-context.js';
import { acceptJob } from './accepted-job-step.js';
import { applyAuthoritativeSources } from './authority-step.js';
import { confirmPreconditions } from './precondition-step.js';
import { checkAuthorization } from './authorization-step.js';
import { refuseUnrecordableContext } from './context-step.js';
import { openContinuation } from './continuation-input-step.js';
import { checkDataShape } from './data-shape-step.js';
import { checkEnvelope } from './envelope-step.js';
import { checkEvidence } from './evidence-step.js';
import { failedExecutionOf, succeededExecution } from './finish-execution.js';
import { startState, type FunnelState } from './funnel-state.js';
import { failOnHandlerThrow, runHandler } from './handler-steps.js';
import { gateArguments, parseArguments } from './input-steps.js';
import { alignPage } from './page-step.js';
import { keepReceipt } from './receipt-step.js';
import { recordHandlerRun } from './recording-step.js';
import { redactAndFit } from './redaction-budget-step.js';
import { isolateDataText } from './untrusted-text-step.js';
import { refuseUnacceptedProvider } from './provider-step.js';
import { checkOutputSchema } from './schema-step.js';
import { checkScope } from './scope-step.js';
import { checkInvariants } from './semantics-step.js';
import { confirmSideEffect } from './side-effect-step.js';
import type { Step } from './step.js';
import type { ToolExecution } from './tool-execution.js';

/** The checks before the handler runs; the host also runs them alone, to refuse a call before it is dispatched. */
const BEFORE_HANDLER: readonly Step[] = [
  refuseUnrecordableContext, // input: trusted values the audit and bindings can record
  gateArguments, // input: plain, bounded JSON
  parseArguments, // input: the tool's input schema
  // After parsing, so a refused call's audit digests the request the worker claimed its key for.
  refuseUnacceptedProvider, // input: a provider binding the host accepts (seed 001)
  openContinuation, // input: where a listing continues; a sealed cursor opened (or refused)
  checkAuthorization, // authorization: the tool's authorize, before anything runs
];

/**
 * The funnel of SPEC §3, in order: the one place the order of the checks is decided. A step sees only what the
 * steps before it established; the first that fails (or finishes early) ends the call.
 */
const FUNNEL: readonly Step[] = [
  ...BEFORE_HANDLER,
  confirmPreconditions((tool, args, ctx) => runFunnel(tool, args, ctx)), // precondition: a write's premises read again
  runHandler,
  recordHandlerRun, // what the handler did, kept for golden cases (recordRawOutput only)
  failOnHandlerThrow,
  keepReceipt, // side effect: a write's receipt, kept whatever fails next
  acceptJob, // protocol: an accepted asynchronous job ends the call here (nothing to check until it finishes)
  checkEnvelope, // protocol: the declared envelope keys
  checkDataShape, // protocol: plain, bounded JSON data; raw size gate; raw digest
  alignPage, // protocol: the continuation is of the declared kind; items an earlier page showed are dropped
  checkScope, // scope: every record the caller's, before any other check can hint that one exists
  applyAuthoritativeSources, // evidence: a conflict the tool names an authority for takes its value, before validation
  checkOutputSchema, // schema
  checkInvariants, // semantics
  checkEvidence, // evidence
  confirmSideEffect, // side effect
  isolateDataText, // redaction: external free text in data moved to untrusted_content, before anything is shown
  redactAndFit, // redaction, budget
];

/** Runs one call through {@link FUNNEL}; never throws for anything the tool or its input does. */
export async function runFunnel(
  tool: AnyToolImplementation,
  rawArgs: unknown,
  ctx: ExecutionContext,
): Promise<ToolExecution> {
  const ran = await runSteps(FUNNEL, startState(tool, ctx, rawArgs));
  if (ran.kind === 'refused') return ran.execution;
  try {
    return succeededExecution(ran.state);
  } catch (error) {
    return internalFailure(ran.state, error);
  }
}

/**
 * What the checks before the handler concluded: the call's refusal, or the arguments the handler would get and the
 * ones the request digest covers (the same, unless the schema's output is not JSON: then the arguments as sent).
 */
export type PreDispatchCheck =
  | { readonly kind: 'refused'; readonly execution: ToolExecution }
  | { readonly kind: 'ready'; readonly arguments: unknown; readonly digestArguments: unknown };

/**
 * Runs only the checks before the handler (input, continuation, authorization), so that a host can refuse a call
 * before dispatching it — before an approval is even asked for. Passing them says nothing about a later run: the
 * funnel runs them again when the call is dispatched (an authorization may be revoked, a cursor may expire).
 */
export async function checkBeforeHandler(
  tool: AnyToolImplementation,
  rawArgs: unknown,
  ctx: ExecutionContext,
): Promise<PreDispatchCheck> {
  const ran = await runSteps(BEFORE_HANDLER, startState(tool, ctx, rawArgs));
  return ran.kind === 'refused'
    ? ran
    : { kind: 'ready', arguments: ran.state.arguments, digestArguments: ran.state.digestArguments };
}

async function runSteps(
  steps: readonly Step[],
  start: FunnelState,
): Promise<{ kind: 'refused'; execution: ToolExecution } | { kind: 'passed'; state: FunnelState }> {
  let state = start;
  try {
    for (const step of steps) {
      const result = await step(state);
      state = result.state;
      if (result.kind === 'fail') return { kind: 'refused', execution: failedExecutionOf(state, result.failure) };
      if (result.kind === 'finish') break;
    }
    return { kind: 'passed', state };
  } catch (error) {
    return { kind: 'refused', execution: internalFailure(state, error) };
  }
}

/**
 * A defect in this package (or a hostile value defeating a guard) still ends as a catalogued result, projected from
 * the state before the step that threw.
 */
function internalFailure(state: FunnelState, error: unknown): ToolExecution {
  return failedExecutionOf(state, catalogFailure('TOOL_ERROR', 'execution', { internal: describeThrown(error) }));
}
