// A remote MCP server's own `pattern`s: matched in linear time when wrapped, and a schema whose pattern would need
// backtracking makes wrapMcpTools skip that tool (reported) instead of stalling a worker later.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { wrapMcpTools, type WrappedMcpTools } from '../../../src/adapters/mcp.js';
import { executeTool } from '../../../src/index.js';
import { testContext } from '../../../testkit/context.js';

const EVIL = `${'a'.repeat(28)}!`;
const stringInput = (pattern: string): Tool['inputSchema'] => ({ type: 'object', properties: { code: { type: 'string', pattern } }, required: ['code'] });

const REMOTE_TOOLS: Tool[] = [
  { name: 'nested_quantifier', inputSchema: stringInput('^(a+)+$'), outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] } },
  { name: 'backreference', inputSchema: stringInput('^(a)\\1$') },
  { name: 'lookahead', inputSchema: { type: 'object', patternProperties: { '^(?!internal_)': { type: 'string' } } } },
  { name: 'plain', inputSchema: stringInput('^ord_[a-z0-9]+$') },
];

async function connectRemote(): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new Server({ name: 'remote', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: REMOTE_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (): CallToolResult => ({ content: [], structuredContent: { code: EVIL } }));
  const client = new Client({ name: 'wrapper', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([client.connect(clientTransport), server.connect(serverTransport)]);
  return { client, close: async () => { await client.close(); await server.close(); } };
}

describe('remote schema patterns', () => {
  let remote: Awaited<ReturnType<typeof connectRemote>>;
  let wrapped: WrappedMcpTools;
  before(async () => {
    remote = await connectRemote();
    wrapped = await wrapMcpTools({ client: remote.client, sourceLabel: 'mcp:remote', defaults: { effect: 'read', requiresApproval: false } });
  });
  after(async () => remote.close());

  it('skips, with a reason, the tools whose schema needs a backtracking pattern, and wraps the others', () => {
    assert.deepEqual(wrapped.skipped.map((entry) => entry.name).sort(), ['backreference', 'lookahead']);
    assert.ok(wrapped.skipped.every((entry) => entry.reason.length > 0));
    assert.deepEqual(wrapped.tools.map((tool) => tool.name).sort(), ['nested_quantifier', 'plain']);
  });

  it('checks ^(a+)+$ in arguments and results without stalling: invalid input refused, invalid output a contract violation', async () => {
    const tool = wrapped.tools.find((candidate) => candidate.name === 'nested_quantifier')!;
    const started = performance.now();
    const refused = await executeTool(tool, { code: EVIL }, testContext());
    const violated = await executeTool(tool, { code: 'aaa' }, testContext());
    assert.ok(performance.now() - started < 1000);
    assert.equal(refused.modelResult.error?.code, 'INVALID_ARGUMENTS');
    assert.equal(violated.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
  });
});
