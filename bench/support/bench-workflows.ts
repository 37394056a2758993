// The benchmarks' workflows module (sandbox-only, like any workflows module): the package's workflows, as a user
// re-exports them, plus drivers that make calls through the plugin (the bare path has its own: bare-workflows.ts).
import { customerDeclaration } from '../../testkit/payment-declarations.js';
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

/**
 * The same calls made with the tool's declaration (a typed call), as application workflows make them: nothing is
 * asked of the worker before the tool activity. `tool` must be the customer read's name (the driver passes it).
 */
export async function pluginTypedCalls(tool: string, argsList: unknown[], options: CallToolOptions): Promise<number> {
  if (tool !== customerDeclaration.name)
    throw new Error(`pluginTypedCalls calls ${customerDeclaration.name}, not ${tool}`);
  let succeeded = 0;
  for (const args of argsList) {
    const { modelResult } = await callTool(customerDeclaration, args as { customer_id: string }, options);
    if (modelResult.status === 'succeeded') succeeded += 1;
  }
  return succeeded;
}

/** One call through the plugin, returning its whole result (the reconciliation benchmark checks how it settled). */
export async function pluginCall(tool: string, args: unknown, options: CallToolOptions): Promise<ToolCallResult> {
  return callTool(tool, args, options);
}
