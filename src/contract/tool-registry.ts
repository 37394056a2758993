import { z } from 'zod';
import { catalogFailure } from './call-failure.js';
import { declareTool, ToolDefinitionError } from './declare-tool.js';
import { implementTool } from './implement-tool.js';
import { TOOL_NAME_PATTERN, type AnyToolImplementation } from './tool-spec.js';
import type { ExecutionContext } from './execution-context.js';
import { executeTool, failedExecution, type ToolExecution } from './execute-tool.js';
import { ToolError } from './tool-error.js';

/**
 * The set of tools a worker offers, by name. Names and aliases are unique across tools; anything unregistered is
 * `UNKNOWN_TOOL`. A tool looked up by an alias is the tool under that name (see `ToolDeclarationSpec.aliases`).
 */
export class ToolRegistry {
  private readonly tools: AnyToolImplementation[] = [];
  /** Every name and alias, to the definition as called by it. */
  private readonly byName = new Map<string, AnyToolImplementation>();
  /** Every alias, to the name of its tool. */
  private readonly aliasOf = new Map<string, string>();

  constructor(tools: Iterable<AnyToolImplementation> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; a second tool with the same name (or alias) is a programming error. */
  register(tool: AnyToolImplementation): this {
    // Definitions from before aliases existed (another copy of the package) have none.
    const aliases: readonly string[] = tool.aliases ?? [];
    const taken = [tool.name, ...aliases].filter((name) => this.byName.has(name));
    if (taken.length > 0) throw new ToolDefinitionError(`tool name '${taken.join("', '")}' is already registered`);
    this.tools.push(tool);
    this.byName.set(tool.name, tool);
    for (const alias of aliases) {
      this.byName.set(alias, Object.freeze({ ...tool, name: alias, aliases: [] }));
      this.aliasOf.set(alias, tool.name);
    }
    return this;
  }

  /**
   * The tool's own name for a name it is called by (itself for a name, the tool's for an alias, `undefined` for
   * anything unregistered): what a workflow counts the tool's calls under, whatever name each was made by.
   */
  nameOf(name: string): string | undefined {
    return this.aliasOf.get(name) ?? (this.byName.has(name) ? name : undefined);
  }

  /** True when `name` is a registered tool's name or alias (own entries only). */
  has(name: unknown): boolean {
    return typeof name === 'string' && this.byName.has(name);
  }

  /** The tool called `name`; throws `ToolError('UNKNOWN_TOOL')` for anything else. */
  get(name: unknown): AnyToolImplementation {
    const tool = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (!tool)
      throw new ToolError('UNKNOWN_TOOL', { name: typeof name === 'string' ? name.slice(0, 200) : typeof name });
    return tool;
  }

  /** Every registered tool under its own name (no aliases), in registration order. */
  list(): AnyToolImplementation[] {
    return [...this.tools];
  }

  /** Runs `name` through the funnel; an unknown name becomes a catalogued `UNKNOWN_TOOL` result, never a throw. */
  async execute(name: unknown, rawArgs: unknown, ctx: ExecutionContext): Promise<ToolExecution> {
    const tool = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (tool) return executeTool(tool, rawArgs, ctx);
    const requested = typeof name === 'string' ? name.slice(0, 200) : typeof name;
    return failedExecution(
      unknownTool(requested),
      ctx,
      catalogFailure('UNKNOWN_TOOL', 'input', { requested }),
      rawArgs,
    );
  }
}

/** A stand-in definition so an unknown name still gets a model result and an audit record. */
function unknownTool(requested: string): AnyToolImplementation {
  const declaration = declareTool({
    name: TOOL_NAME_PATTERN.test(requested) ? requested : 'unknown_tool',
    description: 'A tool name that is not registered.',
    input: z.unknown(),
    output: z.null(),
    effect: 'read',
    source: { label: 'tool-registry', type: 'registry' },
    revisions: { input: 'none', output: 'none', effect: 'none', handler: 'none', producer: 'none', policy: 'none' },
  });
  return implementTool(declaration, { handler: () => Promise.reject(new ToolError('UNKNOWN_TOOL')) });
}
