import type { z } from 'zod';
import { declareTool } from '../src/contract/declare-tool.js';
import { implementTool } from '../src/contract/implement-tool.js';
import type { ToolDeclarationSpec, ToolImplementation, ToolImplementationSpec } from '../src/contract/tool-spec.js';

/**
 * A tool declared and implemented in one spec: for tests and benchmarks that define a worker-only tool in place (its
 * calls name it, they do not import its declaration). Applications declare tools where workflow code can import
 * them (`declareTool`) and implement them on the worker (`implementTool`).
 */
export function defineTool<In extends z.ZodType, Out extends z.ZodType>(
  spec: ToolDeclarationSpec<In, Out> & ToolImplementationSpec<In, Out>,
): ToolImplementation<In, Out> {
  const { handler, reconcile, poll, authorize, preconditions, ...declaration } = spec;
  return implementTool(declareTool(declaration), {
    handler,
    ...(reconcile === undefined ? {} : { reconcile }),
    ...(poll === undefined ? {} : { poll }),
    ...(authorize === undefined ? {} : { authorize }),
    ...(preconditions === undefined ? {} : { preconditions }),
  });
}
