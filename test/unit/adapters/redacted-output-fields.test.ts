// Issue 27, item 4: a field redaction removes must never be one the tool's own output schema lists, or the MCP
// listing and the results disagree and the official MCP client refuses every result (-32602).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createMcpServer, toMcpTool } from '../../../src/adapters/mcp.js';
import { ToolDefinitionError, ToolRegistry, type ModelResult } from '../../../src/index.js';
import { defineTool } from '../../../testkit/define-tool.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';

const accountOutput = (extra: Record<string, z.ZodType>) => z.strictObject({ user: z.string(), ...extra });
const accountTool = (
  output: z.ZodType,
  data: unknown,
  extra: { sensitiveFields?: string[]; publicFields?: string[] } = {},
) =>
  defineTool({
    name: 'accounts.get',
    description: 'One account of the caller.',
    input: z.strictObject({ user: z.string() }),
    output,
    effect: 'read',
    source: { label: 'accounts-db', type: 'database' },
    ...extra,
    handler: () => Promise.resolve({ data: data as never }),
  });

describe('an output schema never lists a field redaction removes', () => {
  it('refuses, at definition, a declared credential field (required or not, at any depth) and a declared sensitive field', () => {
    const refused: z.ZodType[] = [
      accountOutput({ password: z.string() }),
      accountOutput({ password: z.string().optional() }),
      accountOutput({ sessions: z.array(z.strictObject({ id: z.string(), session_token: z.string() })) }),
      accountOutput({ profile: z.union([z.strictObject({ apiKey: z.string() }), z.null()]) }),
    ];
    for (const output of refused) assert.throws(() => accountTool(output, {}), ToolDefinitionError);
    assert.throws(
      () => accountTool(accountOutput({ internal_note: z.string() }), {}, { sensitiveFields: ['internal_note'] }),
      /internal_note/,
    );
  });

  it('accepts a name that only sounds secret once it is listed in publicFields', () => {
    assert.throws(() => accountTool(accountOutput({ session: z.string() }), {}), ToolDefinitionError);
    assert.doesNotThrow(() => accountTool(accountOutput({ session: z.string() }), {}, { publicFields: ['session'] }));
  });

  it('the official MCP client accepts a result whose open record lost a secret to redaction, and the model is told', async () => {
    const tool = accountTool(accountOutput({ settings: z.record(z.string(), z.string()) }), {
      user: 'ann',
      settings: { theme: 'dark', password: 'hunter2-hunter2' },
    });
    const listed = toMcpTool(tool);
    assert.ok(!JSON.stringify(listed.outputSchema).includes('"password"'));
    const server = createMcpServer({
      registry: new ToolRegistry([tool]),
      context: (_request, extra) => testContext({ callId: `mcp-${String(extra.requestId)}` }),
    });
    const client = new Client({ name: 'redaction-tests', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([client.connect(clientTransport), server.connect(serverTransport)]);
    try {
      await client.listTools();
      // The SDK client checks structuredContent against the outputSchema it listed; a mismatch throws -32602.
      const result = (await client.callTool({ name: 'accounts.get', arguments: { user: 'ann' } })) as CallToolResult;
      const modelResult = result.structuredContent as ModelResult;
      assert.deepEqual(modelResult.data, { user: 'ann', settings: { theme: 'dark' } });
      assert.ok(modelResult.warnings.some((warning) => warning.code === 'REDACTED'));
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('a redaction is announced to the model as a warning, and a clean result carries none', async () => {
    const tool = accountTool(accountOutput({ note: z.string() }), {
      user: 'ann',
      note: 'key sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA in the ticket',
    });
    const redacted = await executeTool(tool, { user: 'ann' }, testContext());
    assert.equal(redacted.audit.validation.find((layer) => layer.layer === 'redaction')?.outcome, 'warned');
    assert.deepEqual(
      redacted.modelResult.warnings.map((warning) => warning.code),
      ['REDACTED'],
    );
    const clean = await executeTool(
      accountTool(accountOutput({ note: z.string() }), { user: 'ann', note: 'no secrets here' }),
      { user: 'ann' },
      testContext(),
    );
    assert.deepEqual(clean.modelResult.warnings, []);
  });
});
