import { catalogFailure, describeThrown } from '../call-failure.js';
import type { AnyToolDefinition } from '../define-tool.js';
import type { ExecutionContext } from '../execution-context.js';
import { refuseUnrecordableContext } from './context-step.js';
import { acceptJob } from './accepted-job-step.js';
import { checkDataShape } from './data-shape-step.js';
import { checkEnvelope } from './envelope-step.js';
import { checkEvidence } from './evidence-step.js';
import { failedExecutionOf, succeededExecution } from './finish-execution.js';
import { startState } from './funnel-state.js';
import { failOnHandlerThrow, runHandler } from './handler-steps.js';
import { gateArguments, parseArguments } from './input-steps.js';
import { keepReceipt } from './receipt-step.js';
import { redactAndFit } from './redaction-budget-step.js';
import { checkOutputSchema } from './schema-step.js';
import { checkInvariants } from './semantics-step.js';
import { confirmSideEffect } from './side-effect-step.js';
import type { Step } from './step.js';
import type { ToolExecution } from './tool-execution.js';

/**
 * The funnel of SPEC §3, in order: the one place the order of the checks is decided. A step sees only what the
 * steps before it established; the first that fails (or finishes early) ends the call.
 */
const FUNNEL: readonly Step[] = [
  refuseUnrecordableContext, // input: trusted values the audit and bindings can record
  gateArguments, // input: plain, bounded JSON
  parseArguments, // input: the tool's input schema
  runHandler,
  failOnHandlerThrow,
  keepReceipt, // side effect: a write's receipt, kept whatever fails next
  acceptJob, // protocol: an accepted asynchronous job ends the call here (nothing to check until it finishes)
  checkEnvelope, // protocol: the declared envelope keys
  checkDataShape, // protocol: plain, bounded JSON data; raw size gate; raw digest
  checkOutputSchema, // schema
  checkInvariants, // semantics
  checkEvidence, // evidence
  confirmSideEffect, // side effect
  redactAndFit, // redaction, budget
];

/** Runs one call through {@link FUNNEL}; never throws for anything the tool or its input does. */
export async function runFunnel(tool: AnyToolDefinition, rawArgs: unknown, ctx: ExecutionContext): Promise<ToolExecution> {
  let state = startState(tool, ctx, rawArgs);
  try {
    for (const step of FUNNEL) {
      const result = await step(state);
      state = result.state;
      if (result.kind === 'fail') return failedExecutionOf(state, result.failure);
      if (result.kind === 'finish') break;
    }
    return succeededExecution(state);
  } catch (error) {
    // A defect in this package (or a hostile value defeating a guard) still ends as a catalogued result, projected
    // from the state before the step that threw.
    return failedExecutionOf(state, catalogFailure('TOOL_ERROR', 'execution', { internal: describeThrown(error) }));
  }
}
