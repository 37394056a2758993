import { optionalString, parseCommandArgs, usageError, type CommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';
import type { WorkerSource } from '../worker-command.js';

/** What `worker` runs with: the demo, or the user's modules. */
export interface WorkerInput {
  readonly json: boolean;
  readonly source: WorkerSource;
}

/** `worker`: a worker with the plugin, serving the demo or the user's tools. */
export const workerCommand: StackCommandSpec<WorkerInput> = {
  name: 'worker',
  usage: {
    synopsis: 'worker [--tools <module> --task-queue <name> [--workflows <path>]]',
    description: [
      'a worker with the ToolContractPlugin on TEMPORAL_ADDRESS: by default the demo tools',
      'and workflows (task queue ttc-demo); --tools: a module exporting `tools` (a',
      'ToolRegistry or an array of tools, optionally `safeRetryTools`), --workflows: your',
      "workflows module (default: the package's, with agentLoop). Runs until Ctrl-C/SIGTERM",
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, {
      tools: { type: 'string' },
      workflows: { type: 'string' },
      'task-queue': { type: 'string' },
    });
    return { json, source: workerSource(values) };
  },
  load: async () => {
    const { runWorkerCommand } = await import('../worker-command.js');
    return (input, ctx) => runWorkerCommand(ctx, input.source);
  },
};

function workerSource(values: CommandArgs['values']): WorkerSource {
  const toolsModule = optionalString(values, 'tools');
  const workflowsModule = optionalString(values, 'workflows');
  const taskQueue = optionalString(values, 'task-queue');
  if (toolsModule === undefined) {
    if (workflowsModule !== undefined || taskQueue !== undefined)
      throw usageError('--workflows and --task-queue go with --tools <module> (without it the worker serves the demo)');
    return { kind: 'demo' };
  }
  if (toolsModule.trim() === '') throw usageError('--tools needs a module path');
  if (taskQueue === undefined || taskQueue.trim() === '')
    throw usageError('--tools needs --task-queue <name> (the queue your workflows are started on)');
  return { kind: 'user', toolsModule, taskQueue, ...(workflowsModule === undefined ? {} : { workflowsModule }) };
}
