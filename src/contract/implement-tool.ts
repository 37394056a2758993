// implementTool: binds how a tool runs (handler, reconcile, poll, authorize, preconditions) to what it is (its declaration), on the
// worker. The registry holds implementations; the contract funnel runs them.
import type { z } from 'zod';
import { ToolDefinitionError } from './declare-tool.js';
import { preconditionProblems } from './preconditions.js';
import type { ToolDeclaration, ToolImplementation, ToolImplementationSpec } from './tool-spec.js';

/** The worker's implementation of `declaration`: its handler and, for side effects, how to ask whether one happened. */
export function implementTool<In extends z.ZodType, Out extends z.ZodType>(
  declaration: ToolDeclaration<In, Out>,
  runs: ToolImplementationSpec<In, Out>,
): ToolImplementation<In, Out> {
  const fail = (why: string): never => {
    throw new ToolDefinitionError(`tool '${declaration.name}': ${why}`);
  };
  if (!isDeclaration(declaration)) fail('implementTool takes a declaration made by declareTool');
  if (typeof runs.handler !== 'function') fail('handler must be a function');
  for (const part of ['reconcile', 'poll', 'authorize'] as const) {
    if (runs[part] !== undefined && typeof runs[part] !== 'function') fail(`${part} must be a function`);
  }
  if (runs.reconcile !== undefined && declaration.effect === 'read') fail('only side-effecting tools can reconcile');
  if (runs.poll !== undefined && declaration.effect === 'read')
    fail('only side-effecting tools can start jobs to poll');
  for (const problem of preconditionProblems({ effect: declaration.effect, preconditions: runs.preconditions }))
    fail(problem);
  return Object.freeze({
    ...declaration,
    handler: runs.handler,
    ...(runs.reconcile === undefined ? {} : { reconcile: runs.reconcile }),
    ...(runs.poll === undefined ? {} : { poll: runs.poll }),
    ...(runs.authorize === undefined ? {} : { authorize: runs.authorize }),
    ...(runs.preconditions === undefined ? {} : { preconditions: Object.freeze([...runs.preconditions]) }),
  });
}

function isDeclaration(value: unknown): value is ToolDeclaration {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.isFrozen(value) &&
    typeof (value as { facts?: { revision?: unknown } }).facts?.revision === 'string'
  );
}
