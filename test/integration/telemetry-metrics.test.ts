import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineTool, ToolError } from '../../src/index.js';
import { FUNNEL_DURATION_METRIC, TOOL_RESULTS_METRIC } from '../../src/temporal/index.js';
import { freePort } from '../../src/testing/free-port.js';
import type { ToolCallResult } from '../../workflows/index.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { installTestRuntime } from '../../testkit/temporal-server.js';

// The package's metrics reach the Temporal runtime's own Prometheus endpoint with no setup of their own. The runtime
// is installed once per process, before the harness connects: this file runs in a process of its own.
const principal = { tenant: 'tenant-acme', subject: 'user-42' };
// Installed as the module loads: the harness's before() hook would install the runtime without the endpoint.
const bindAddress = `127.0.0.1:${await freePort()}`;
installTestRuntime({ prometheus: { bindAddress } });
const metricsUrl = `http://${bindAddress}/metrics`;

const findAccount = defineTool({
  name: 'ops.findAccount',
  description: 'Finds an account by id.',
  input: z.strictObject({ account: z.string() }),
  output: z.strictObject({ account: z.string() }),
  effect: 'read',
  source: { label: 'accounts', type: 'http_api' },
  handler: async ({ account }) => {
    if (account === 'missing') throw new ToolError('NOT_FOUND', { account: 'unknown' });
    return { data: { account } };
  },
});

const h = useRuntimeHarness('it-telemetry-metrics', { extraTools: [findAccount] });

/** The sample lines of one metric family (its name, then `{` or a space, or a `_bucket`/`_sum`/`_count` suffix). */
function samples(scrape: string, name: string): string[] {
  return scrape.split('\n').filter((line) => /^(\w+?)(_bucket|_sum|_count)?[{ ]/.exec(line)?.[1] === name);
}

function value(line: string): number {
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('a call counts in ttc_tool_results by tool, status and code, and its time in ttc_funnel_duration, on the runtime Prometheus endpoint', { timeout: 120_000 }, async () => {
  for (const [workflowId, account] of [['metrics-ok', 'acct-1'], ['metrics-missing', 'missing']] as const) {
    const result = await h.temporal.client.workflow.execute<(...args: unknown[]) => Promise<ToolCallResult>>('runToolCall', { taskQueue: h.taskQueue, workflowId, args: [findAccount.name, { account }, { principal }] });
    assert.equal(result.modelResult.status, account === 'missing' ? 'failed' : 'succeeded');
  }
  const scrape = await (await fetch(metricsUrl)).text();
  const results = samples(scrape, TOOL_RESULTS_METRIC).filter((line) => line.includes(`tool="${findAccount.name}"`));
  const succeeded = results.find((line) => line.includes('status="succeeded"') && line.includes('code="none"'));
  const notFound = results.find((line) => line.includes('status="failed"') && line.includes('code="NOT_FOUND"'));
  assert.ok(succeeded !== undefined && value(succeeded) === 1, `one success counted: ${results.join('\n')}`);
  assert.ok(notFound !== undefined && value(notFound) === 1, `one NOT_FOUND counted: ${results.join('\n')}`);
  assert.ok(succeeded.includes(`taskQueue="${h.taskQueue}"`), 'the runtime meter adds the activity tags');
  const count = samples(scrape, FUNNEL_DURATION_METRIC).find((line) => line.startsWith(`${FUNNEL_DURATION_METRIC}_count`) && line.includes(`tool="${findAccount.name}"`) && line.includes('status="succeeded"'));
  assert.ok(count !== undefined && value(count) === 1, `the funnel time was recorded once: ${samples(scrape, FUNNEL_DURATION_METRIC).slice(0, 5).join('\n')}`);
});
