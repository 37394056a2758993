// The benchmarks' workflows module (sandbox-only, like any workflows module): the package's workflows, as a user
// re-exports them, plus two drivers that make the same calls through the plugin and as bare activities.
import { proxyActivities } from '@temporalio/workflow';
import { callTool, type CallToolOptions, type ToolCallResult } from '../../workflows/index.js';
import { bareActivityName } from './bare-names.js';

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

/**
 * The same calls as plain activities (the tool's handler, nothing else), with the activity options `callTool` uses
 * for a read: 30 s start-to-close, 3 attempts. Returns how many returned.
 */
export async function bareCalls(tool: string, argsList: unknown[]): Promise<number> {
  const activities = proxyActivities<Record<string, (args: unknown) => Promise<unknown>>>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });
  const call = activities[bareActivityName(tool)]!;
  let returned = 0;
  for (const args of argsList) {
    await call(args);
    returned += 1;
  }
  return returned;
}
