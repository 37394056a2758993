import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createMcpServer, type McpServerOptions } from '../../src/adapters/mcp.js';
import { ToolRegistry, type ModelResult } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool, type ToolExecution } from '../../src/contract/execute-tool.js';
import { verifyAudit } from '../../src/audit/index.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { testContext } from '../../testkit/context.js';

let handlerRuns = 0;
const lookup = defineTool({
  name: 'customers.lookup',
  description: 'Look up a customer by id.',
  input: z.strictObject({ id: z.string() }),
  output: z.strictObject({ id: z.string(), tier: z.enum(['basic', 'gold']) }),
  effect: 'read',
  source: { label: 'crm', type: 'database' },
  handler: (args) => {
    handlerRuns += 1;
    return Promise.resolve({
      data: { id: args.id, tier: args.id === 'c-gold' ? ('gold' as const) : ('basic' as const) },
    });
  },
});

const accepted = [{ apiFamily: 'responses', adapterRevision: 'openai-responses@1' }];

describe('provider bindings the host has not registered are refused (seed 001)', () => {
  it('a call bound to an adapter revision not on the accepted list does not run: TOOL_ERROR, not started', async () => {
    const before = handlerRuns;
    const retired = testContext({
      acceptedProviders: accepted,
      provider: { ...testContext().provider, adapterRevision: 'openai-responses@0' },
    });
    const { modelResult, audit } = await executeTool(lookup, { id: 'c-1' }, retired);
    assert.deepEqual(
      [modelResult.error?.code, modelResult.execution.outcome, modelResult.error?.layer],
      ['TOOL_ERROR', 'not_started', 'input'],
    );
    assert.equal(handlerRuns, before, 'the handler never ran');
    assert.deepEqual((audit.error_detail as { detail: { reason: string } }).detail.reason, 'provider_not_accepted');
    assert.equal(
      (await executeTool(lookup, { id: 'c-1' }, testContext({ acceptedProviders: accepted }))).modelResult.status,
      'succeeded',
    );
  });

  it('verifyAudit refuses an audit bound to a revision the verifier does not accept, however its digests look', async () => {
    const ctx = testContext();
    const { modelResult, audit } = await executeTool(lookup, { id: 'c-1' }, ctx);
    const trusted = {
      principal: ctx.principal,
      tool: { name: lookup.name, revisions: lookup.revisions },
      arguments: { id: 'c-1' },
      provider: ctx.provider,
      callId: ctx.callId,
      operationId: ctx.operationId,
      idempotencyKey: ctx.idempotencyKey,
    };
    assert.deepEqual(verifyAudit({ modelResult, audit, trusted, acceptedProviders: accepted }), {
      ok: true,
      failed: [],
    });
    assert.deepEqual(
      verifyAudit({
        modelResult,
        audit,
        trusted,
        acceptedProviders: [{ apiFamily: 'responses', adapterRevision: 'openai-responses@2' }],
      }).failed,
      ['provider_revision'],
    );
  });
});

describe('the MCP server recomputes the bindings before it serializes a result (seed 001: the last hop re-checks)', () => {
  async function call(
    execute: McpServerOptions['execute'],
    id: string,
    context: (n: number) => ExecutionContext = (n) => testContext({ callId: `mcp-${n}` }),
  ): Promise<CallToolResult> {
    const server = createMcpServer({
      registry: new ToolRegistry([lookup]),
      context: (_request, extra) => context(Number(extra.requestId)),
      ...(execute === undefined ? {} : { execute }),
    });
    const client = new Client({ name: 'binding-tests', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([client.connect(clientTransport), server.connect(serverTransport)]);
    try {
      return (await client.callTool({ name: lookup.name, arguments: { id } })) as CallToolResult;
    } finally {
      await client.close();
      await server.close();
    }
  }
  const refused = (error: unknown) => error instanceof McpError && error.code === (ErrorCode.InternalError as number);

  it('an honest executor passes', async () => {
    const result = await call(undefined, 'c-gold');
    assert.equal((result.structuredContent as ModelResult).status, 'succeeded');
  });

  it("an executor that answers with another call's result (swapped, or for other arguments) is refused: nothing is sent", async () => {
    const other: ToolExecution = await executeTool(lookup, { id: 'c-gold' }, testContext({ callId: 'someone-else' }));
    await assert.rejects(
      call(() => Promise.resolve(other), 'c-gold'),
      refused,
    );
    const otherArguments: ToolExecution = await executeTool(lookup, { id: 'c-gold' }, testContext({ callId: 'mcp-1' }));
    await assert.rejects(
      call(() => Promise.resolve(otherArguments), 'c-basic'),
      refused,
    );
  });

  it('an executor whose result was edited after it was bound is refused', async () => {
    const edit = async (tool: typeof lookup, args: unknown, ctx: ExecutionContext): Promise<ToolExecution> => {
      const honest = await executeTool(tool, args, ctx);
      return { ...honest, modelResult: { ...honest.modelResult, data: { id: 'c-basic', tier: 'gold' } } };
    };
    await assert.rejects(call(edit, 'c-basic'), refused);
  });
});
