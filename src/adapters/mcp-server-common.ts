import { ErrorCode, McpError, type Implementation } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** What an MCP server of this package calls itself when the host names it nothing else. */
export const DEFAULT_MCP_SERVER_INFO: Implementation = { name: 'temporal-tool-contract', version: '0.1.0' };

/**
 * `tools/call` as registered: loose, so that malformed params reach the SDK's own `CallToolRequestSchema` check and
 * are answered with `InvalidParams` — registering the strict schema would make them an `InternalError`.
 */
export const LOOSE_CALL_TOOL_REQUEST = z.object({ method: z.literal('tools/call'), params: z.unknown() });

/**
 * Runs host or runtime code for a request; whatever it throws, except a deliberate `McpError`, becomes a generic
 * protocol error, so host internals and connection details never reach the client. `stage` names the step.
 */
export async function guardedMcp<T>(run: () => Promise<T>, stage?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpError) throw error;
    throw new McpError(
      ErrorCode.InternalError,
      `The tool call could not be completed${stage === undefined ? '' : ` (${stage})`}.`,
    );
  }
}
