import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { ToolError } from '../../src/index.js';
import {
  FUNNEL_DURATION_METRIC,
  PENDING_APPROVALS_METRIC,
  startContractGauges,
  TOOL_RESULTS_METRIC,
  UNSETTLED_CALLS_METRIC,
} from '../../src/temporal/index.js';
import { freePort } from '../../src/testing/free-port.js';
import {
  APPROVAL_SIGNAL,
  PENDING_APPROVALS_QUERY,
  RECONCILE_STATE_QUERY,
  RESOLVE_OUTCOME_SIGNAL,
} from '../../src/wire/names.js';
import {
  reconcileWorkflowId,
  type PendingApproval,
  type ReconcileStatus,
  type ToolCallResult,
} from '../../workflows/index.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { signedApproval, signedResolution } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { installTestRuntime } from '../../testkit/temporal-server.js';
import { defineTool } from '../../testkit/define-tool.js';

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

/** The labels of a sample line (`name{a="x",b="y"} 1`); label values here never hold quotes or commas. */
function labelsOf(line: string): Record<string, string> {
  const inside = /\{(.*)\}/.exec(line)?.[1] ?? '';
  return Object.fromEntries(
    [...inside.matchAll(/(\w+)="([^"]*)"/g)].map(([, name = '', labelValue = '']) => [name, labelValue]),
  );
}

function value(line: string): number {
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

test(
  'a call counts in ttc_tool_results by tool, status and code, and its time in ttc_funnel_duration, on the runtime Prometheus endpoint',
  { timeout: 120_000 },
  async () => {
    for (const [workflowId, account] of [
      ['metrics-ok', 'acct-1'],
      ['metrics-missing', 'missing'],
    ] as const) {
      const result = await h.temporal.client.workflow.execute<(...args: unknown[]) => Promise<ToolCallResult>>(
        'runToolCall',
        { taskQueue: h.taskQueue, workflowId, args: [findAccount.name, { account }, { principal }] },
      );
      assert.equal(result.modelResult.status, account === 'missing' ? 'failed' : 'succeeded');
    }
    const scrape = await (await fetch(metricsUrl)).text();
    const results = samples(scrape, TOOL_RESULTS_METRIC).filter((line) => line.includes(`tool="${findAccount.name}"`));
    const succeeded = results.find((line) => line.includes('status="succeeded"') && line.includes('code="none"'));
    const notFound = results.find((line) => line.includes('status="failed"') && line.includes('code="NOT_FOUND"'));
    assert.ok(succeeded !== undefined && value(succeeded) === 1, `one success counted: ${results.join('\n')}`);
    assert.ok(notFound !== undefined && value(notFound) === 1, `one NOT_FOUND counted: ${results.join('\n')}`);
    assert.ok(
      succeeded.includes(`task_queue="${h.taskQueue}"`) && succeeded.includes(`activity_type="${findAccount.name}"`),
      'the activity labels, as Temporal Core names them',
    );
    const count = samples(scrape, FUNNEL_DURATION_METRIC).find(
      (line) =>
        line.startsWith(`${FUNNEL_DURATION_METRIC}_count`) &&
        line.includes(`tool="${findAccount.name}"`) &&
        line.includes('status="succeeded"'),
    );
    assert.ok(
      count !== undefined && value(count) === 1,
      `the funnel time was recorded once: ${samples(scrape, FUNNEL_DURATION_METRIC).slice(0, 5).join('\n')}`,
    );
  },
);

test(
  "the ttc_* series join the SDK's temporal_* series on the same label names: namespace, task_queue, activity_type, workflow_type",
  { timeout: 120_000 },
  async () => {
    const result = await h.temporal.client.workflow.execute<(...args: unknown[]) => Promise<ToolCallResult>>(
      'runToolCall',
      {
        taskQueue: h.taskQueue,
        workflowId: 'metrics-join',
        args: [findAccount.name, { account: 'acct-join' }, { principal }],
      },
    );
    assert.equal(result.modelResult.status, 'succeeded');
    const scrape = await (await fetch(metricsUrl)).text();
    const ours = samples(scrape, TOOL_RESULTS_METRIC)
      .map(labelsOf)
      .find((labels) => labels['tool'] === findAccount.name);
    // Temporal Core's own series of the same activity: its latency histogram, counted by the same worker.
    const sdks = scrape
      .split('\n')
      .filter((line) => line.startsWith('temporal_activity_execution_latency'))
      .map(labelsOf)
      .find((labels) => labels['activity_type'] === findAccount.name);
    assert.ok(
      ours !== undefined && sdks !== undefined,
      `both series are on the endpoint:\n${scrape
        .split('\n')
        .filter((line) => line.includes(findAccount.name))
        .join('\n')}`,
    );
    for (const label of ['namespace', 'task_queue', 'activity_type', 'workflow_type']) {
      assert.ok(ours[label] !== undefined, `ttc_tool_results has ${label}`);
      assert.equal(ours[label], sdks[label], `${label} joins`);
    }
    assert.deepEqual(
      Object.keys(ours).filter((label) => /[A-Z]/.test(label)),
      [],
      "no camelCase label (taskQueue, activityType) on the package's series",
    );
  },
);

/** The value of a gauge on the endpoint now for the series whose labels include all of `labels`, or `undefined`. */
async function gaugeValue(name: string, labels: Readonly<Record<string, string>>): Promise<number | undefined> {
  const scrape = await (await fetch(metricsUrl)).text();
  const line = samples(scrape, name).find((sample) =>
    Object.entries(labels).every(([label, labelValue]) => sample.includes(`${label}="${labelValue}"`)),
  );
  return line === undefined ? undefined : value(line);
}

/** Waits until the gauge's series shows `expected` (the sampler runs every 200 ms; visibility lags a little). */
async function gaugeReaches(name: string, labels: Readonly<Record<string, string>>, expected: number): Promise<void> {
  await eventually(
    `${name} ${JSON.stringify(labels)} = ${expected}`,
    async () => ((await gaugeValue(name, labels)) === expected ? true : undefined),
    30_000,
  );
}

test(
  'ttc_pending_approvals and ttc_unsettled_calls are sampled from visibility and the store: 1 while a call waits for approval or settlement, 0 once decided or settled',
  { timeout: 180_000 },
  async () => {
    const gauges = startContractGauges({ client: h.temporal.client, store: h.store, intervalMs: 200 });
    try {
      const namespace = { namespace: h.temporal.client.options.namespace };
      // A refund waits for approval until it is signed.
      const refund = await h.temporal.client.workflow.start('runToolCall', {
        taskQueue: h.taskQueue,
        workflowId: 'gauges-approval',
        args: [TOOLS.refund, { payment_id: 'pay_gauge_1', customer: 'cus_1', amount_cents: 700 }, { principal }],
      });
      const pending = await eventually(
        'a pending approval',
        async () => (await refund.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
      );
      await gaugeReaches(PENDING_APPROVALS_METRIC, namespace, 1);
      await refund.signal(APPROVAL_SIGNAL, signedApproval(pending));
      assert.equal(((await refund.result()) as ToolCallResult).modelResult.status, 'succeeded');
      await gaugeReaches(PENDING_APPROVALS_METRIC, namespace, 0);

      // A charge commits and then hangs past its timeout, and the provider cannot be asked: it stays unsettled
      // (escalated) until a person resolves it.
      const key = chargeKey(principal.tenant, 'pay_gauge_2');
      h.payments.inject(key, 'commit_then_hang');
      h.payments.setStatusFault(key, 'unavailable');
      const charge = await h.temporal.client.workflow.start('runToolCall', {
        taskQueue: h.taskQueue,
        workflowId: 'gauges-unsettled',
        args: [
          TOOLS.charge,
          { payment_id: 'pay_gauge_2', customer: 'cus_1', amount_cents: 500 },
          {
            principal,
            timeoutMs: 1500,
            reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 3000 },
          },
        ],
      });
      const unsettledCharges = { ...namespace, tool: TOOLS.charge };
      await gaugeReaches(UNSETTLED_CALLS_METRIC, unsettledCharges, 1);
      const reconciler = h.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
      const status = await eventually('the escalation', async () => {
        const state = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
        return state.state === 'escalated' ? state : undefined;
      });
      await reconciler.signal(
        RESOLVE_OUTCOME_SIGNAL,
        signedResolution(status, {
          outcome: 'committed',
          externalId: h.payments.charge(key)?.charge_id ?? 'missing',
          resolvedBy: 'ops@example.com',
        }),
      );
      assert.equal(((await charge.result()) as ToolCallResult).modelResult.execution.outcome, 'committed');
      await gaugeReaches(UNSETTLED_CALLS_METRIC, unsettledCharges, 0);
    } finally {
      await gauges.stop();
    }
  },
);
