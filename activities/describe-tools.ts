import type { ToolFacts } from '../src/contract/tool-facts.js';
import type { ToolRuntime } from './runtime.js';

/** Input of the describe-tools activity: the tool names a workflow calls by name and has no declaration of. */
export interface DescribeToolsInput {
  readonly names: readonly string[];
}

/** Most names one description answers: a model's turn is bounded, and so is the recorded answer. */
const MAX_NAMES = 512;

/**
 * The facts of the tools this worker serves under the names asked for, in order (`null`: no tool of that name or
 * alias), for workflow code that calls tools by name: a model's calls in the agent loop, the MCP server's calls. A
 * name's facts are its tool's own (an alias gives the tool under its own name). The answer is recorded in history,
 * and each call still carries the revision it was decided by, which the tool activity checks again.
 */
export function createDescribeTools(
  runtime: ToolRuntime,
): (input: DescribeToolsInput) => Promise<readonly (ToolFacts | null)[]> {
  return ({ names }) => {
    const asked = Array.isArray(names) ? names.slice(0, MAX_NAMES) : [];
    return Promise.resolve(asked.map((name) => (runtime.registry.has(name) ? runtime.registry.get(name).facts : null)));
  };
}
