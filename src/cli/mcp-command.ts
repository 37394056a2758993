import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createDurableMcpServer } from '../temporal/mcp/durable-mcp-server.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { configuredCodec } from './codec-config.js';
import type { McpInput } from './commands/mcp.js';
import { checkMcpHttpAccess, McpHttpAccessError, serveMcpHttp } from './mcp-http.js';
import { cliOutput } from './output.js';
import type { StackContext } from './stack-context.js';
import { stopRequested, Teardown } from './teardown.js';
import { connectClient } from './temporal-connection.js';
import { loadToolModule } from './tool-module.js';

/**
 * `mcp`: a Temporal client serving a tool module's registry over MCP until a stop signal (or, over stdio, until the
 * client closes stdin). It runs no tools itself — a `worker` on the same task queue does — so restarting it loses
 * nothing: the calls are workflows, and the same request finds its workflow again.
 */
export async function runMcpCommand(ctx: StackContext, input: McpInput): Promise<ExitCode> {
  // Over stdio, stdout is the protocol channel: everything this command says goes to stderr.
  const out = input.transport.kind === 'stdio' ? cliOutput(ctx.out.json, process.stderr, process.stderr) : ctx.out;
  const bearerToken = ctx.config.mcpToken;
  // An endpoint that would be open without a token is refused before anything connects.
  if (input.transport.kind === 'http')
    refuseOpenEndpoint({ ...input.transport, ...(bearerToken === undefined ? {} : { bearerToken }) });
  const teardown = new Teardown(out.progress);
  try {
    const module = await loadToolModule(input.toolsModule, ctx.projectRoot);
    const codec = configuredCodec(ctx.config.codecKeys);
    out.progress(
      `connecting to Temporal at ${ctx.config.temporal.address} (namespace ${ctx.config.temporal.namespace})`,
    );
    const temporal = await connectClient(ctx.config.temporal, codec?.codec ?? null);
    teardown.add('the Temporal connection', () => temporal.close());
    const newServer = () =>
      createDurableMcpServer({
        client: temporal.client,
        taskQueue: input.taskQueue,
        principal: input.principal,
        registry: module.tools,
      });
    const tools = module.tools.list().map((tool) => tool.name);
    const ready = {
      taskQueue: input.taskQueue,
      tools,
      principal: `${input.principal.tenant}/${input.principal.subject}`,
    };
    if (input.transport.kind === 'stdio') {
      const server = newServer();
      const closed = new Promise<void>((resolve) => (server.onclose = resolve));
      await server.connect(new StdioServerTransport());
      teardown.add('the MCP server', () => server.close());
      out.report(
        { event: 'ready', transport: 'stdio', ...ready },
        `MCP server on stdio for task queue '${input.taskQueue}' (tools: ${tools.join(', ')})`,
      );
      await Promise.race([stopRequested(ctx.stop), closed]);
    } else {
      const { host, port, allowedHosts } = input.transport;
      const http = await serveMcpHttp({
        host,
        port,
        allowedHosts,
        newServer,
        ...(bearerToken === undefined ? {} : { bearerToken }),
      }).catch((error: NodeJS.ErrnoException) => {
        throw new CliError(
          `cannot listen on ${host}:${port} (${error.code ?? error.message}); choose another --http port`,
          EXIT_CODES.unavailable,
          { cause: error },
        );
      });
      teardown.add('the MCP endpoint', () => http.close());
      out.report(
        { event: 'ready', transport: 'http', url: http.url, ...ready },
        `MCP server at ${http.url} for task queue '${input.taskQueue}' (tools: ${tools.join(', ')})\nCtrl-C (or SIGTERM) stops it.`,
      );
      await stopRequested(ctx.stop);
    }
    return EXIT_CODES.ok;
  } finally {
    await teardown.run();
    out.report({ event: 'stopped' }, 'stopped');
  }
}

function refuseOpenEndpoint(access: Parameters<typeof checkMcpHttpAccess>[0]): void {
  try {
    checkMcpHttpAccess(access);
  } catch (error) {
    if (error instanceof McpHttpAccessError)
      throw new CliError(`${error.message} (set ${CLI_ENV.mcpToken})`, EXIT_CODES.usage, { cause: error });
    throw error;
  }
}
