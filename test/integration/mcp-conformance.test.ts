// The official MCP conformance suite (@modelcontextprotocol/conformance, run on Node 22 from .tools/mcp-conformance)
// against the durable MCP server over Streamable HTTP, as `tool-contract mcp --http` serves it. Scenarios that do not
// apply to a tool server are listed in docs/mcp.md with the reason; every scenario run here must pass without a
// failure or a warning.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { z } from 'zod';
import { serveMcpHttp, type RunningMcpHttp } from '../../src/cli/mcp-http.js';
import { createDurableMcpServer } from '../../src/temporal/mcp/index.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { defineTool } from '../../testkit/define-tool.js';

const run = promisify(execFile);

/** Scenarios of the suite that apply to a tool server. */
export const APPLICABLE_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'server-sse-polling',
] as const;

/**
 * The tool the suite's SSE polling scenario calls. A call through Temporal that outlasts `SSE_POLLING_AFTER_MS` (on a
 * 2-core machine most do) has its stream closed, and the suite must resume it (`Last-Event-ID`) to get the result;
 * a quicker one answers on the first stream. Either passes; the suite gives the resumed stream 5 s.
 */
const reconnectionTool = defineTool({
  name: 'test_reconnection',
  description: 'Answers at once (the MCP conformance suite calls it to test SSE polling).',
  input: z.strictObject({}),
  output: z.strictObject({ reconnected: z.boolean() }),
  effect: 'read',
  source: { label: 'conformance', type: 'computed' },
  handler: () => Promise.resolve({ data: { reconnected: true } }),
});

const h = useRuntimeHarness('it-mcp-conformance', { extraTools: [reconnectionTool] });
let endpoint: RunningMcpHttp;
let suite: { node: string; cli: string };
const results = mkdtempSync(join(tmpdir(), 'ttc-mcp-conformance-'));

before(
  async () => {
    const { stdout } = await run('bash', ['scripts/install-mcp-conformance.sh'], { timeout: 300_000 });
    const dir = stdout.trim();
    suite = {
      node: join(dir, 'node_modules/node/bin/node'),
      cli: join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    };
    const principal = { tenant: 'conformance', subject: 'suite' };
    endpoint = await serveMcpHttp({
      host: '127.0.0.1',
      port: 0,
      allowedHosts: [],
      newServer: () =>
        createDurableMcpServer({ client: h.temporal.client, taskQueue: h.taskQueue, principal, registry: h.tools }),
    });
  },
  { timeout: 320_000 },
);
after(async () => {
  await endpoint?.close();
  rmSync(results, { recursive: true, force: true });
});

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

function checksOf(dir: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('checks.json'))
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Check[]);
}

for (const scenario of APPLICABLE_SCENARIOS) {
  test(`MCP conformance: ${scenario} passes without warnings`, { timeout: 120_000 }, async () => {
    const out = join(results, scenario);
    await run(suite.node, [suite.cli, 'server', '--url', endpoint.url, '--scenario', scenario, '-o', out], {
      timeout: 100_000,
    }).catch((error: unknown) => error);
    const checks = checksOf(out);
    assert.ok(
      checks.some((check) => check.status === 'SUCCESS'),
      `${scenario}: no successful check in ${JSON.stringify(checks)}`,
    );
    const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    assert.deepEqual(
      bad.map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ''}`),
      [],
    );
  });
}
