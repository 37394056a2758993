// The benchmarks' workflows module (sandbox-only, like any workflows module): the package's workflows, as a user
// re-exports them, plus drivers that make calls through the plugin (the bare path has its own: bare-workflows.ts).
import { callTool, type CallToolOptions, type ToolCallResult } from '../../workflows/index.js';

export * from '../../workflows/index.js';

/**
 * Calls `tool` once per entry of `argsList`, one after another, through the plugin (`callTool`); returns how many
 * ended `succeeded`, so the driver can check every call really ran.
 */
export async function pluginCalls(tool: string, argsList: unknown[], options: CallToolOptions): Promise<number> {
  let succeeded = 0;
  for (const args of argsList) {
    const { modelResult } = await callTool(tool, args, options);
    if (modelResult.status === 'succeeded') succeeded += 1;
  }
  return succeeded;
}

/** One call through the plugin, returning its whole result (the reconciliation benchmark checks how it settled). */
export async function pluginCall(tool: string, args: unknown, options: CallToolOptions): Promise<ToolCallResult> {
  return callTool(tool, args, options);
}
