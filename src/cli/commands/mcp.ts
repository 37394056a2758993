import { parsePort } from '../cli-config.js';
import { optionalString, parseCommandArgs, requiredString, usageError, type CommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';
import type { Principal } from '../../contract/tool-handler.js';
import { isSafeMcpTaskQueueName } from '../../temporal/mcp/mcp-task-queue-name.js';

/** How `mcp` serves: over stdio (one client, the process that started it), or Streamable HTTP on a local port. */
export type McpTransportChoice =
  | { readonly kind: 'stdio' }
  | { readonly kind: 'http'; readonly host: string; readonly port: number; readonly allowedHosts: readonly string[] };

/** What `mcp` runs with. */
export interface McpInput {
  readonly json: boolean;
  readonly toolsModule: string;
  readonly taskQueue: string;
  readonly principal: Principal;
  readonly transport: McpTransportChoice;
}

/** The optional peer dependency that serving MCP needs (and only that: no other command loads it). */
const MCP_SDK_PACKAGE = '@modelcontextprotocol/sdk';

/** The principal of calls when none is given: a local, single-user server. */
export const DEFAULT_MCP_PRINCIPAL: Principal = { tenant: 'local', subject: 'mcp-client' };

/** `mcp`: the tools of a module to MCP clients, each call a Temporal workflow (a `worker` must serve the same tools). */
export const mcpCommand: StackCommandSpec<McpInput> = {
  name: 'mcp',
  usage: {
    synopsis:
      'mcp --tools <module> --task-queue <name> [--http <port> [--host <h>] [--allowed-host <h>]] [--principal <tenant>/<subject>]',
    description: [
      'serves the tools of <module> to MCP clients (stdio, or Streamable HTTP with --http);',
      'every tools/call runs as a workflow on TEMPORAL_ADDRESS through callTool (ledger,',
      'approvals, reconciliation, audit) and MCP tasks are those workflows. Needs a worker:',
      '`worker --tools <module> --task-queue <name>`. Calls run as --principal (default',
      'local/mcp-client). HTTP accepts only Host headers of the listening address (and',
      '--allowed-host), and with TTC_MCP_TOKEN set only requests bearing it (required off',
      'loopback and with an --allowed-host that is not loopback: a reverse proxy forwards',
      'anyone); stdout is the protocol channel over stdio, progress goes to stderr',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, {
      tools: { type: 'string' },
      'task-queue': { type: 'string' },
      http: { type: 'string' },
      host: { type: 'string' },
      'allowed-host': { type: 'string' },
      principal: { type: 'string' },
    });
    return {
      json,
      toolsModule: requiredString(values, 'tools'),
      taskQueue: taskQueueOf(values),
      principal: principalOf(values),
      transport: transportOf(values),
    };
  },
  load: async () => {
    const { importWithOptionalPeer } = await import('../optional-peer.js');
    const { runMcpCommand } = await importWithOptionalPeer(
      () => import('../mcp-command.js'),
      MCP_SDK_PACKAGE,
      '`tool-contract mcp`',
    );
    return (input, ctx) => runMcpCommand(ctx, input);
  },
};

function taskQueueOf(values: CommandArgs['values']): string {
  const taskQueue = requiredString(values, 'task-queue');
  if (!isSafeMcpTaskQueueName(taskQueue))
    throw usageError('--task-queue may use only letters, digits and . _ : / @ - (at most 200)');
  return taskQueue;
}

function principalOf(values: CommandArgs['values']): Principal {
  const given = optionalString(values, 'principal');
  if (given === undefined) return DEFAULT_MCP_PRINCIPAL;
  const [tenant, subject, ...rest] = given.split('/');
  if (tenant === undefined || subject === undefined || rest.length > 0 || tenant.trim() === '' || subject.trim() === '')
    throw usageError('--principal must be <tenant>/<subject>');
  return { tenant, subject };
}

function transportOf(values: CommandArgs['values']): McpTransportChoice {
  const port = optionalString(values, 'http');
  const host = optionalString(values, 'host');
  const allowed = optionalString(values, 'allowed-host');
  if (port === undefined) {
    if (host !== undefined || allowed !== undefined)
      throw usageError('--host and --allowed-host go with --http <port>');
    return { kind: 'stdio' };
  }
  return {
    kind: 'http',
    host: host ?? '127.0.0.1',
    port: parsePort(port, '--http'),
    allowedHosts: allowed === undefined ? [] : [allowed],
  };
}
