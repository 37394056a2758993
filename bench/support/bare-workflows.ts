// The bare path's workflows module: what a worker without the plugin bundles — nothing of the package, so a bare
// workflow does not evaluate the package's modules in its sandbox (a workflow evaluates every module of its bundle).
import { proxyActivities } from '@temporalio/workflow';
import { bareActivityName } from './bare-names.js';

/**
 * The same calls as plain activities (the tool's handler, nothing else), with the activity options `callTool` uses
 * for a read: 30 s start-to-close, 3 attempts. Returns how many returned.
 */
export async function bareCalls(tool: string, argsList: unknown[]): Promise<number> {
  const activities = proxyActivities<Record<string, (args: unknown) => Promise<unknown>>>({
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 3 },
  });
  const call = activities[bareActivityName(tool)]!;
  let returned = 0;
  for (const args of argsList) {
    await call(args);
    returned += 1;
  }
  return returned;
}
