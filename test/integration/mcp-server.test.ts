import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { serveMcpHttp, type RunningMcpHttp } from '../../src/cli/mcp-http.js';
import { formatDecisionKey } from '../../src/decisions/index.js';
import { freePort } from '../../src/testing/free-port.js';
import { createDurableMcpServer } from '../../src/temporal/mcp/index.js';
import { mcpWorkflowId } from '../../src/temporal/mcp/mcp-call-identity.js';
import { MCP_IDEMPOTENCY_META_KEY } from '../../src/wire/mcp.js';
import { PENDING_APPROVALS_QUERY } from '../../src/wire/names.js';
import type { ModelResult } from '../../src/index.js';
import type { PendingApproval } from '../../workflows/index.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { CLI_MAIN, runCli, startCli } from '../support/cli-process.js';
import { TEST_DECISION_KEY } from '../support/decisions.js';
import { TIP_TOOL, tipTool } from '../support/mcp-tools.js';
import { eventually } from '../support/eventually.js';
import { rawRequest } from '../support/raw-http.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { RUN_TYPESCRIPT } from '../../testkit/run-typescript.js';

const principal = { tenant: 'tenant-mcp', subject: 'ide-user' };
// The tip is registered on the harness's worker beside the payment tools (it reads the service's address late).
const h = useRuntimeHarness('it-mcp', { extraTools: [tipTool(() => h.payments.baseUrl)] });
const endpoints: RunningMcpHttp[] = [];
const clients: Client[] = [];
after(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const endpoint of endpoints) await endpoint.close();
});

/** A `tool-contract mcp --http` endpoint as the CLI serves it, on the harness's Temporal and task queue. */
async function startEndpoint(): Promise<RunningMcpHttp> {
  const newServer = () =>
    createDurableMcpServer({
      client: h.temporal.client,
      taskQueue: h.taskQueue,
      principal,
      registry: h.tools,
      callOptions: { timeoutMs: 2000 },
    });
  const endpoint = await serveMcpHttp({ host: '127.0.0.1', port: 0, allowedHosts: [], newServer });
  endpoints.push(endpoint);
  return endpoint;
}

/** The official SDK client, connected over Streamable HTTP (a new session each time). */
async function httpClient(endpoint: RunningMcpHttp): Promise<Client> {
  const client = new Client({ name: 'it-mcp-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
  clients.push(client);
  return client;
}

/** A protocol error of kind InvalidParams (unknown tool, reused key, task not found), as the client throws it. */
function invalidParams(error: unknown): boolean {
  return error instanceof McpError && error.code === (ErrorCode.InvalidParams as number);
}

function modelResultOf(result: object): ModelResult {
  assert.ok('structuredContent' in result, 'a contract result is structured content');
  return result.structuredContent as ModelResult;
}

/** A tip with the client's idempotency key in `_meta`. */
function tip(key: string, amount = 1500): CallToolRequest['params'] {
  return {
    name: TIP_TOOL,
    arguments: { customer: 'cus_tip', amount_cents: amount },
    _meta: { [MCP_IDEMPOTENCY_META_KEY]: key },
  };
}

test(
  'over Streamable HTTP, tools/list offers the registry with task support and tools/call runs as an audited workflow',
  { timeout: 120_000 },
  async () => {
    const client = await httpClient(await startEndpoint());
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name).sort(),
      h.tools
        .list()
        .map((tool) => tool.name)
        .sort(),
    );
    assert.ok(tools.every((tool) => tool.execution?.taskSupport === 'optional'));
    assert.deepEqual(client.getServerCapabilities()?.tasks?.requests, { tools: { call: {} } });

    const result = await client.callTool(
      { name: TOOLS.customer, arguments: { customer_id: 'c-7' } },
      CallToolResultSchema,
    );
    const model = modelResultOf(result);
    assert.equal(model.status, 'succeeded');
    assert.equal(result.isError, false);
    assert.deepEqual(model.data, { id: 'c-7', name: 'Customer c-7', tier: 'gold' });
    // The call ran as a workflow of the package, under the server's principal, and left its audit in the store.
    const workflows: string[] = [];
    for await (const info of h.temporal.client.workflow.list({
      query: `WorkflowType = 'mcpToolCall' AND TaskQueue = '${h.taskQueue}'`,
    }))
      workflows.push(info.workflowId);
    const audits = (await Promise.all(workflows.map((workflowId) => h.store.listAudits({ workflowId })))).flat();
    assert.ok(
      audits.some((row) => row.audit.tool === TOOLS.customer),
      'the MCP call is audited',
    );

    await assert.rejects(client.callTool({ name: 'no.such_tool', arguments: {} }), invalidParams);
  },
);

/** A durable server over the SDK's in-memory transport, spoken to in raw JSON-RPC: `request` answers with the response. */
async function rawDurableSession(): Promise<{
  request: (message: JSONRPCMessage & { id: number }) => Promise<{ result?: unknown; error?: unknown }>;
  close: () => Promise<void>;
}> {
  const server = createDurableMcpServer({
    client: h.temporal.client,
    taskQueue: h.taskQueue,
    principal,
    registry: h.tools,
    callOptions: { timeoutMs: 2000 },
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const responses = new Map<number, { result?: unknown; error?: unknown }>();
  clientTransport.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number' && !('method' in message)) responses.set(message.id, message);
  };
  await server.connect(serverTransport);
  await clientTransport.start();
  const request = async (message: JSONRPCMessage & { id: number }): Promise<{ result?: unknown; error?: unknown }> => {
    await clientTransport.send(message);
    return eventually(`answer ${message.id}`, () => Promise.resolve(responses.get(message.id)));
  };
  return { request, close: () => server.close() };
}

test(
  'once 2026-07-28 was negotiated, tools/call and tasks/result answers carry resultType (an SDK offering it, simulated)',
  { timeout: 120_000 },
  async () => {
    SUPPORTED_PROTOCOL_VERSIONS.unshift('2026-07-28');
    const session = await rawDurableSession();
    try {
      const init = await session.request({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      assert.equal((init.result as { protocolVersion?: unknown }).protocolVersion, '2026-07-28');
      const call = { name: TOOLS.customer, arguments: { customer_id: 'c-8' } };
      const plain = await session.request({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call });
      assert.equal((plain.result as { resultType?: unknown }).resultType, 'complete');
      const created = await session.request({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { ...call, task: { ttl: 60_000 } },
      });
      const { taskId } = CreateTaskResultSchema.parse(created.result).task;
      const fromTask = await session.request({ jsonrpc: '2.0', id: 4, method: 'tasks/result', params: { taskId } });
      assert.equal((fromTask.result as { resultType?: unknown }).resultType, 'complete');
    } finally {
      SUPPORTED_PROTOCOL_VERSIONS.splice(SUPPORTED_PROTOCOL_VERSIONS.indexOf('2026-07-28'), 1);
      await session.close();
    }
  },
);

test(
  'a write sent twice with the same client idempotency key is one side effect, across sessions; another key is another call',
  { timeout: 120_000 },
  async () => {
    const endpoint = await startEndpoint();
    const before = h.payments.keys().length;
    const first = await (await httpClient(endpoint)).callTool(tip('order-991'), CallToolResultSchema);
    // A reconnecting client (a new session, request ids counted from the start again) resends the same request.
    const again = await (await httpClient(endpoint)).callTool(tip('order-991'), CallToolResultSchema);
    assert.equal(modelResultOf(first).status, 'succeeded');
    assert.deepEqual(modelResultOf(again), modelResultOf(first));
    assert.equal(h.payments.keys().length, before + 1, 'the same key reached the payments service once');
    const keyed = h.payments.keys().at(-1)!;
    assert.equal(h.payments.dispatches(keyed), 1);

    await (await httpClient(endpoint)).callTool(tip('order-992'), CallToolResultSchema);
    assert.equal(h.payments.keys().length, before + 2, 'another key is another payout');

    // The same key for another request is refused, not run and not answered with the first call's result.
    await assert.rejects(
      (await httpClient(endpoint)).callTool(tip('order-991', 99), CallToolResultSchema),
      invalidParams,
    );
    assert.equal(h.payments.keys().length, before + 2);

    // Without a client key a call is identified by its session and request id: two sessions are two calls.
    const unkeyed = { name: TIP_TOOL, arguments: { customer: 'cus_tip', amount_cents: 100 } };
    await (await httpClient(endpoint)).callTool(unkeyed, CallToolResultSchema);
    await (await httpClient(endpoint)).callTool(unkeyed, CallToolResultSchema);
    assert.equal(h.payments.keys().length, before + 4);
  },
);

test(
  'an approval-gated write as an MCP task: input_required, approved, the provider hangs after committing, the MCP server restarts, and the task completes with one side effect and an audit',
  { timeout: 180_000 },
  async () => {
    const paymentId = 'pay_mcp_task_1';
    const key = chargeKey(principal.tenant, paymentId, TOOLS.refund);
    h.payments.inject(key, 'commit_then_hang');
    const first = await startEndpoint();
    const client = await httpClient(first);
    const created = await client.request(
      {
        method: 'tools/call',
        params: {
          name: TOOLS.refund,
          arguments: { payment_id: paymentId, customer: 'cus_9', amount_cents: 700 },
          task: { ttl: 600_000 },
        },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    assert.equal(created.task.ttl, 600_000);
    const waiting = await eventually('the task to wait for approval', async () => {
      const task = await client.experimental.tasks.getTask(taskId);
      return task.status === 'input_required' ? task : undefined;
    });
    assert.equal(h.payments.dispatches(key), 0, 'nothing runs before the decision');
    assert.ok(
      (await client.experimental.tasks.listTasks()).tasks.some(
        (task) => task.taskId === taskId && task.status === 'input_required',
      ),
    );

    // The MCP server goes away while the call waits; an operator approves with the CLI, which signs the decision.
    await client.close();
    await first.close();
    const [pending] = await h.temporal.client.workflow
      .getHandle(taskId)
      .query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
    assert.ok(pending !== undefined);
    const operatorEnv = {
      TEMPORAL_ADDRESS: h.temporal.server.address,
      TEMPORAL_NAMESPACE: h.temporal.server.namespace,
      ...h.databaseEnv,
      TTC_DECISION_KEY: formatDecisionKey(TEST_DECISION_KEY, 'signing'),
    };
    const approve = await runCli(
      ['approve', taskId, pending.callId, '--digest', pending.preview.requestSha256, '--approver', 'carol@example.com'],
      { env: operatorEnv },
    );
    assert.equal(approve.code, EXIT_CODES.ok, approve.stderr);
    assert.equal((JSON.parse(approve.stdout) as { accepted: boolean }).accepted, true);

    // A restarted server (new process state, new session) answers for the task from Temporal.
    const restarted = await httpClient(await startEndpoint());
    const done = await eventually(
      'the task to finish after reconciliation',
      async () => {
        const task = await restarted.experimental.tasks.getTask(taskId);
        return task.status === 'working' || task.status === 'input_required' ? undefined : task;
      },
      90_000,
      500,
    );
    assert.equal(done.status, 'completed');
    assert.equal(waiting.createdAt, done.createdAt);
    const result = await restarted.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    const model = modelResultOf(result);
    assert.equal(model.status, 'succeeded');
    assert.equal(model.execution.outcome, 'committed');
    assert.equal(h.payments.commits(key), 1, 'exactly one side effect');
    const audits = (await h.store.listAudits({ workflowId: taskId })).map((row) => row.audit);
    const approved = audits.find((audit) => audit.decision?.decision === 'approve');
    assert.equal(approved?.decision?.decided_by, 'carol@example.com');
  },
);

test(
  'tasks/cancel cancels the workflow of a call waiting for approval; it never runs',
  { timeout: 120_000 },
  async () => {
    const paymentId = 'pay_mcp_cancel_1';
    const client = await httpClient(await startEndpoint());
    const created = await client.request(
      {
        method: 'tools/call',
        params: {
          name: TOOLS.refund,
          arguments: { payment_id: paymentId, customer: 'cus_9', amount_cents: 300 },
          task: {},
        },
      },
      CreateTaskResultSchema,
    );
    await eventually('input_required', async () =>
      (await client.experimental.tasks.getTask(created.task.taskId)).status === 'input_required' ? true : undefined,
    );
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, paymentId, TOOLS.refund)), 0);
    await assert.rejects(
      client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema),
      invalidParams,
    );
  },
);

test('a task past its TTL is not found', { timeout: 120_000 }, async () => {
  const client = await httpClient(await startEndpoint());
  const created = await client.request(
    {
      method: 'tools/call',
      params: { name: TOOLS.customer, arguments: { customer_id: 'c-ttl' }, task: { ttl: 1500 } },
    },
    CreateTaskResultSchema,
  );
  assert.equal(created.task.ttl, 1500);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await assert.rejects(client.experimental.tasks.getTask(created.task.taskId), invalidParams);
});

test(
  'a task TTL below the floor is refused as InvalidParams before any workflow starts',
  { timeout: 120_000 },
  async () => {
    const client = await httpClient(await startEndpoint());
    for (const [key, ttl] of [
      ['ttl-zero', 0],
      ['ttl-negative', -5000],
      ['ttl-tiny', 1],
    ] as const) {
      const params = { ...tip(key), task: { ttl } };
      await assert.rejects(client.request({ method: 'tools/call', params }, CreateTaskResultSchema), invalidParams);
      const workflowId = mcpWorkflowId({ method: 'tools/call', params }, principal, {
        sessionId: undefined,
        connectionId: 'unused with a client key',
        requestId: 0,
      });
      await assert.rejects(
        h.temporal.client.workflow.getHandle(workflowId).describe(),
        (error: unknown) => (error as { name?: unknown }).name === 'WorkflowNotFoundError',
      );
    }
  },
);

test(
  'tasks/list answers a malformed cursor with InvalidParams; a task queue name unsafe in a visibility query is refused at construction',
  { timeout: 120_000 },
  async () => {
    const client = await httpClient(await startEndpoint());
    await assert.rejects(client.experimental.tasks.listTasks('not a time'), invalidParams);
    assert.throws(
      () =>
        createDurableMcpServer({
          client: h.temporal.client,
          taskQueue: "q' OR TaskQueue = 'other",
          principal,
          registry: h.tools,
        }),
      TypeError,
    );
  },
);

test(
  '`tool-contract mcp` over stdio serves the same tools to the official SDK client, each call a workflow',
  { timeout: 180_000 },
  async () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...RUN_TYPESCRIPT,
        CLI_MAIN,
        'mcp',
        '--tools',
        'test/support/mcp-tools.ts',
        '--task-queue',
        h.taskQueue,
        '--principal',
        `${principal.tenant}/${principal.subject}`,
      ],
      env: {
        ...env,
        TEMPORAL_ADDRESS: h.temporal.server.address,
        TEMPORAL_NAMESPACE: h.temporal.server.namespace,
        TTC_TEST_PAYMENTS_URL: h.payments.baseUrl,
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'it-mcp-stdio', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === TIP_TOOL));
    const before = h.payments.keys().length;
    const first = await client.callTool(tip('stdio-order-1', 700), CallToolResultSchema);
    const again = await client.callTool(tip('stdio-order-1', 700), CallToolResultSchema);
    assert.equal(modelResultOf(first).status, 'succeeded');
    assert.deepEqual(modelResultOf(again), modelResultOf(first));
    assert.equal(h.payments.keys().length, before + 1);
    await client.close();
  },
);

test(
  '`tool-contract mcp --http` on loopback with an --allowed-host of a reverse proxy refuses to start without TTC_MCP_TOKEN, and starts with one',
  { timeout: 120_000 },
  async () => {
    const args = [
      'mcp',
      '--tools',
      'test/support/mcp-tools.ts',
      '--task-queue',
      h.taskQueue,
      '--http',
      String(await freePort()),
      '--allowed-host',
      'mcp.example.com',
      '--json',
    ];
    const env = {
      TEMPORAL_ADDRESS: h.temporal.server.address,
      TEMPORAL_NAMESPACE: h.temporal.server.namespace,
      TTC_TEST_PAYMENTS_URL: h.payments.baseUrl,
    };
    const open = await runCli(args, { env: { ...env, TTC_MCP_TOKEN: undefined } });
    assert.equal(open.code, EXIT_CODES.usage, open.stderr);
    assert.match(open.stderr, /TTC_MCP_TOKEN/);
    const guarded = startCli(args, { env: { ...env, TTC_MCP_TOKEN: 'a-token-of-enough-length' } });
    try {
      const ready = await guarded.waitForEvent('ready', 60_000);
      const anonymous = await rawRequest(String(ready['url']), {
        headers: {
          host: 'mcp.example.com',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{}',
      });
      assert.equal(anonymous.status, 401, 'a request forwarded by the proxy without the token');
    } finally {
      guarded.child.kill('SIGTERM');
      await guarded.exited(30_000);
    }
  },
);
