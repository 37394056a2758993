// A remote MCP server's own `pattern`s: matched in linear time when wrapped, and a schema whose pattern would need
// backtracking makes wrapMcpTools skip that tool (reported) instead of stalling a worker later. Linear is not enough:
// the factor is the pattern's program, so a pattern that compiles to too many instructions is refused the same way,
// and a value whose pattern matches would exceed the work one check may do fails the check unread.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { wrapMcpTools, type WrappedMcpTools } from '../../../src/adapters/mcp.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';

const EVIL = `${'a'.repeat(28)}!`;
/** 130 characters, 10,003 instructions: 9 s on 50 KB of `a` on the linear engine, synchronously. */
const PROGRAM_BOMB = `${'[\\s\\S]{1000}'.repeat(10)}[^a]`;
/** 1,003 instructions: within the program bound, so the work bound is what stops it on a long value. */
const WIDE = '^[\\s\\S]{1000}[^a]';
const LONG_MATCHING = 'b'.repeat(50_000);
const stringInput = (pattern: string): Tool['inputSchema'] => ({
  type: 'object',
  properties: { code: { type: 'string', pattern } },
  required: ['code'],
});

const REMOTE_TOOLS: Tool[] = [
  {
    name: 'nested_quantifier',
    inputSchema: stringInput('^(a+)+$'),
    outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] },
  },
  { name: 'backreference', inputSchema: stringInput('^(a)\\1$') },
  { name: 'lookahead', inputSchema: { type: 'object', patternProperties: { '^(?!internal_)': { type: 'string' } } } },
  { name: 'plain', inputSchema: stringInput('^ord_[a-z0-9]+$') },
  { name: 'program_bomb', inputSchema: stringInput(PROGRAM_BOMB) },
  {
    name: 'program_bomb_output',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: PROGRAM_BOMB } } },
  },
  {
    name: 'wide',
    inputSchema: {
      type: 'object',
      properties: { code: { type: 'string', pattern: WIDE }, echo: { type: 'string' } },
      required: ['code'],
    },
    outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: WIDE } }, required: ['code'] },
  },
];

async function connectRemote(): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new Server({ name: 'remote', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: REMOTE_TOOLS }));
  // Echoes `code` back as the result, or answers with EVIL.
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    const code = request.params.arguments?.['echo'];
    return { content: [], structuredContent: { code: typeof code === 'string' ? code : EVIL } };
  });
  const client = new Client({ name: 'wrapper', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([client.connect(clientTransport), server.connect(serverTransport)]);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe('remote schema patterns', () => {
  let remote: Awaited<ReturnType<typeof connectRemote>>;
  let wrapped: WrappedMcpTools;
  before(async () => {
    remote = await connectRemote();
    wrapped = await wrapMcpTools({
      client: remote.client,
      sourceLabel: 'mcp:remote',
      defaults: { effect: 'read', requiresApproval: false },
    });
  });
  after(async () => remote.close());

  it('skips, with a reason, the tools whose schema needs a backtracking pattern, and wraps the others', () => {
    assert.deepEqual(wrapped.skipped.map((entry) => entry.name).sort(), [
      'backreference',
      'lookahead',
      'program_bomb',
      'program_bomb_output',
    ]);
    assert.ok(wrapped.skipped.every((entry) => entry.reason.length > 0));
    assert.deepEqual(wrapped.tools.map((tool) => tool.name).sort(), ['nested_quantifier', 'plain', 'wide']);
  });

  it('refuses at listing a 130-character pattern that compiles past the program bound ([\\s\\S]{1000} ten times, then [^a])', () => {
    for (const name of ['program_bomb', 'program_bomb_output']) {
      const reason = wrapped.skipped.find((entry) => entry.name === name)?.reason ?? '';
      assert.match(reason, /10003 instructions/, name);
    }
  });

  it('fails, unread, an argument or a result whose pattern work exceeds the bound; the same pattern on a short value passes', async () => {
    const tool = wrapped.tools.find((candidate) => candidate.name === 'wide')!;
    // 1,003 instructions × 50,001 characters is three times the work bound (2^24); the value matches the pattern, so
    // only the bound can fail it.
    const longArgument = await executeTool(tool, { code: LONG_MATCHING }, testContext());
    assert.equal(longArgument.modelResult.error?.code, 'INVALID_ARGUMENTS');
    const longResult = await executeTool(tool, { code: 'b'.repeat(1_001), echo: LONG_MATCHING }, testContext());
    assert.equal(longResult.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
    const control = await executeTool(tool, { code: 'b'.repeat(1_001), echo: 'b'.repeat(2_000) }, testContext());
    assert.equal(control.modelResult.error, null);
    assert.equal(control.modelResult.status, 'succeeded');
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
