// A registry exposed as an MCP server, exercised by the SDK's real Client over its in-memory transport (and over
// a stdio transport for raw bytes), with every Tool and CallToolResult checked against the official schemas.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpServerOptions } from '../../../src/adapters/mcp.js';
import { renderModelResult } from '../../../src/adapters/render-model-result.js';
import { ToolRegistry, type ModelResult } from '../../../src/index.js';
import { executeTool, type ToolExecution } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import { goodOrderOutput, orderTool, refundTool, returning } from '../../support/tools.js';
import { assertOfficial, type McpRevision } from '../../support/mcp-official-schema.js';
import { reviewsTool } from './results.js';

/** Revisions this SDK can negotiate (2026-07-28 results carry `resultType`, covered below and in result-adapters.test.ts). */
const SERVER_REVISIONS: McpRevision[] = ['2025-06-18', '2025-11-25'];

let refundsRun = 0;

function registry(): ToolRegistry {
  return new ToolRegistry([
    orderTool(returning(goodOrderOutput())),
    refundTool(async (args) => {
      refundsRun++;
      return {
        data: { refund_id: 'rf_1', amount_cents: args.amount_cents, status: 'pending' as const },
        receipt: { externalId: 'psp-77' },
      };
    }),
    reviewsTool,
  ]);
}

async function connect(
  options: Partial<McpServerOptions> = {},
): Promise<{ client: Client; executions: ToolExecution[]; close: () => Promise<void> }> {
  const executions: ToolExecution[] = [];
  const server = createMcpServer({
    registry: registry(),
    context: (_request, extra) =>
      testContext({
        callId: `mcp-${String(extra.requestId)}`,
        provider: {
          provider: 'mcp',
          apiFamily: 'tools/call',
          responseId: null,
          providerCallId: String(extra.requestId),
          adapterRevision: 'mcp-server@1',
        },
      }),
    onExecution: (execution) => {
      executions.push(execution);
    },
    ...options,
  });
  const client = new Client({ name: 'adapter-tests', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([client.connect(clientTransport), server.connect(serverTransport)]);
  return {
    client,
    executions,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Matches an McpError with this JSON-RPC code. */
function mcpError(code: ErrorCode): (error: unknown) => boolean {
  return (error) => error instanceof McpError && error.code === (code as number);
}

function structured(result: unknown): ModelResult {
  return (result as CallToolResult).structuredContent as ModelResult;
}

function assertOfficialResult(result: unknown): void {
  for (const revision of SERVER_REVISIONS) assertOfficial(revision, 'CallToolResult', result);
}

describe('MCP server over the SDK client', () => {
  let session: Awaited<ReturnType<typeof connect>>;
  before(async () => {
    session = await connect();
  });
  after(async () => {
    await session.close();
  });

  it('lists every tool with schemas and annotations that pass the official Tool schema', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['orders.get', 'payments.refund', 'reviews.latest'],
    );
    assert.deepEqual(
      tools.map((tool) => tool.annotations?.readOnlyHint),
      [true, false, true],
    );
    for (const tool of tools)
      for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'] as const)
        assertOfficial(revision, 'Tool', tool);
  });

  it('returns the model result as structuredContent (validated by the client against outputSchema) and as text', async () => {
    await session.client.listTools();
    const result = await session.client.callTool({ name: 'orders.get', arguments: { order_id: 'ord_1001' } });
    const execution = session.executions.at(-1);
    assert.ok(execution);
    const { value, text } = renderModelResult(execution.modelResult);
    assert.deepEqual(result, { content: [{ type: 'text', text }], structuredContent: value, isError: false });
    assert.equal(structured(result).status, 'succeeded');
    assertOfficialResult(result);
    assert.deepEqual(CallToolResultSchema.parse(result), result);
  });

  it('reports tool failures as results with isError and a catalogued code', async () => {
    await session.client.listTools();
    const result = await session.client.callTool({ name: 'orders.get', arguments: { order_id: 42 } });
    assert.equal(result.isError, true);
    assert.equal(structured(result).error?.code, 'INVALID_ARGUMENTS');
    assertOfficialResult(result);
    const missing = await session.client.callTool({ name: 'orders.get' });
    assert.equal(structured(missing).error?.code, 'INVALID_ARGUMENTS');
  });

  it('fences untrusted content in both content and structuredContent', async () => {
    await session.client.listTools();
    const result = await session.client.callTool({ name: 'reviews.latest', arguments: { product_id: 'p-1' } });
    const [untrusted] = structured(result).untrusted_content;
    assert.ok(untrusted);
    assert.ok(untrusted.text.startsWith('<untrusted-content-'));
    assert.equal(untrusted.text.includes('<|im_start|>'), false);
    const [block] = result.content as { type: string; text: string }[];
    assert.deepEqual(JSON.parse(block?.text ?? 'null'), result.structuredContent);
    assertOfficialResult(result);
  });

  it('binds the audit to the MCP request and never returns it', async () => {
    const result = await session.client.callTool({ name: 'orders.get', arguments: { order_id: 'ord_1001' } });
    const execution = session.executions.at(-1);
    assert.ok(execution);
    assert.equal(execution.audit.provider.provider, 'mcp');
    assert.match(execution.audit.provider.provider_call_id ?? '', /^\d+$/);
    const wire = JSON.stringify(result);
    for (const secret of [
      execution.audit.idempotency_key,
      execution.audit.operation_id,
      execution.audit.bindings.call_binding_sha256,
      execution.audit.principal_ref,
    ]) {
      assert.equal(wire.includes(secret), false);
    }
  });

  it('never runs a tool that requires approval: it answers APPROVAL_REQUIRED (needs_input)', async () => {
    const before = refundsRun;
    const result = await session.client.callTool({
      name: 'payments.refund',
      arguments: { order_id: 'ord_1', amount_cents: 500 },
    });
    assert.equal(result.isError, true);
    assert.equal(structured(result).status, 'needs_input');
    assert.equal(structured(result).error?.code, 'APPROVAL_REQUIRED');
    assert.equal(structured(result).execution.outcome, 'not_started');
    assert.equal(refundsRun, before);
    assertOfficialResult(result);
  });

  it('answers 50 parallel calls, each with its own result', async () => {
    await session.client.listTools();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        session.client.callTool({ name: 'reviews.latest', arguments: { product_id: `p-${n}` } }),
      ),
    );
    results.forEach((result, n) => assert.deepEqual(structured(result).data, { product_id: `p-${n}`, rating: 4 }));
  });

  it('answers an unknown tool with a protocol error, not a successful-looking result', async () => {
    await assert.rejects(
      session.client.callTool({ name: 'orders.delete_all', arguments: {} }),
      mcpError(ErrorCode.InvalidParams),
    );
    await assert.rejects(
      session.client.callTool({ name: 'toString', arguments: {} }),
      mcpError(ErrorCode.InvalidParams),
    );
  });

  it('answers non-object arguments with a protocol error', async () => {
    const request = {
      method: 'tools/call',
      params: { name: 'orders.get', arguments: 'order_id=ord_1001' },
    } as unknown as Parameters<Client['request']>[0];
    await assert.rejects(session.client.request(request, CallToolResultSchema), mcpError(ErrorCode.InvalidParams));
  });
});

describe('MCP server host hooks', () => {
  it('a failing context or audit hook is a generic InternalError that leaks nothing', async () => {
    for (const options of [
      {
        context: () => {
          throw new Error('db password=hunter2 unavailable');
        },
      },
      { onExecution: () => Promise.reject(new Error('audit store password=hunter2 down')) },
    ] satisfies Partial<McpServerOptions>[]) {
      const session = await connect(options);
      try {
        await assert.rejects(
          session.client.callTool({ name: 'orders.get', arguments: { order_id: 'ord_1001' } }),
          (error: unknown) => {
            assert.ok(error instanceof McpError);
            assert.equal(error.code, ErrorCode.InternalError);
            assert.equal(error.message.includes('hunter2'), false);
            return true;
          },
        );
      } finally {
        await session.close();
      }
    }
  });

  it('routes calls through the host executor when one is given (which then owns approvals)', async () => {
    const seen: string[] = [];
    const session = await connect({
      execute: (tool, args, ctx) => {
        seen.push(tool.name);
        return executeTool(tool, args, ctx);
      },
    });
    try {
      await session.client.listTools();
      const result = await session.client.callTool({
        name: 'payments.refund',
        arguments: { order_id: 'ord_1', amount_cents: 500 },
      });
      assert.deepEqual(seen, ['payments.refund']);
      assert.equal(structured(result).execution.outcome, 'committed');
      assert.equal(result.isError, false);
    } finally {
      await session.close();
    }
  });
});

describe('MCP server over raw bytes (stdio transport)', () => {
  it('survives broken JSON and keeps answering well-formed requests', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const server = createMcpServer({ registry: registry(), context: () => testContext() });
    const transportErrors: Error[] = [];
    const transport = new StdioServerTransport(input, output);
    await server.connect(transport);
    transport.onerror = (error) => transportErrors.push(error);
    const responses = new Map<number, { result?: unknown; error?: { code: number } }>();
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { code: number } };
        if (typeof message.id === 'number') responses.set(message.id, message);
      }
    });
    const send = (text: string) => input.write(`${text}\n`);
    const waitFor = async (id: number) => {
      for (let i = 0; i < 600 && !responses.has(id); i++) await new Promise((resolve) => setTimeout(resolve, 5));
      return responses.get(id);
    };
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    assert.ok((await waitFor(1))?.result);
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"orders.get","arguments":{"order_id":');
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'orders.get', arguments: '{"order_id": "ord_1001"' },
      }),
    );
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'orders.get', arguments: { order_id: 'ord_1001' } },
      }),
    );
    const answered = await waitFor(4);
    assert.equal((answered?.result as CallToolResult | undefined)?.isError, false);
    assert.equal((await waitFor(3))?.error?.code, ErrorCode.InvalidParams);
    assert.equal(responses.has(2), false, 'half a JSON document is never parsed into a request');
    assert.ok(transportErrors.length >= 1);
    await server.close();
  });
});

describe('MCP server: the negotiated protocol revision reaches the result', () => {
  /** Initializes over raw JSON-RPC asking for `requested`, then calls orders.get; what was agreed, and the result. */
  async function callAt(requested: string): Promise<{ agreed: unknown; result: CallToolResult }> {
    const server = createMcpServer({ registry: registry(), context: () => testContext() });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const responses = new Map<number, { result?: unknown }>();
    clientTransport.onmessage = (message) => {
      if ('id' in message && typeof message.id === 'number') responses.set(message.id, message as { result?: unknown });
    };
    await server.connect(serverTransport);
    await clientTransport.start();
    const answer = async (id: number): Promise<{ result?: unknown } | undefined> => {
      for (let i = 0; i < 400 && !responses.has(id); i++) await new Promise((resolve) => setTimeout(resolve, 5));
      return responses.get(id);
    };
    try {
      await clientTransport.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: requested, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const agreed = ((await answer(1))?.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      await clientTransport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await clientTransport.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'orders.get', arguments: { order_id: 'ord_1001' } },
      });
      return { agreed, result: (await answer(2))?.result as CallToolResult };
    } finally {
      await server.close();
    }
  }

  it('omits resultType below 2026-07-28', async () => {
    const { agreed, result } = await callAt('2025-11-25');
    assert.equal(agreed, '2025-11-25');
    assert.equal('resultType' in result, false);
    assertOfficial('2025-11-25', 'CallToolResult', result);
  });

  it('sets resultType once 2026-07-28 was negotiated (an SDK that offers it, simulated by extending its list)', async () => {
    SUPPORTED_PROTOCOL_VERSIONS.unshift('2026-07-28');
    try {
      const { agreed, result } = await callAt('2026-07-28');
      assert.equal(agreed, '2026-07-28');
      assert.equal(result.resultType, 'complete');
      assertOfficial('2026-07-28', 'CallToolResult', result);
    } finally {
      SUPPORTED_PROTOCOL_VERSIONS.splice(SUPPORTED_PROTOCOL_VERSIONS.indexOf('2026-07-28'), 1);
    }
  });
});
