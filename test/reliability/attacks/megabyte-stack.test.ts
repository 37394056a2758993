// A read tool returning 1 MB of the worst input of every pattern that runs on outside text (each secret detector and
// rule, the protected values, instruction signals) as data, untrusted text and evidence quote, through the whole
// stack. Each call's funnel (its audit's total time less the handler's) must take under a second; the whole call
// (the tool activity, scheduled to completed) is reported. Two fake secrets ride along — one at the start, one
// straddling the text budget's cut — and neither may reach the model result, an adapter rendering or the history.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { REDACTED_MARKER } from '../../../src/contract/redaction.js';
import { DEFAULT_BUDGET } from '../../../src/index.js';
import type { ToolCallResult } from '../../../workflows/index.js';
import { INSTRUCTION_INPUTS, REDACTION_INPUTS } from '../../../testkit/security/adversarial-inputs.js';
import { FAKE_SECRETS } from '../../../testkit/security/secret-corpus.js';
import { historyText } from '../../support/history-text.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';
import { assertHidden } from '../../unit/security/hidden.js';
import { adapterRenderings, assertValidModelResult } from './stack.js';
import { defineTool } from '../../../testkit/define-tool.js';

const MEGABYTE = 1 << 20;
/** Funnel time allowed for one call (SPEC §11: no input stalls a worker). */
const FUNNEL_LIMIT_MS = 1_000;
const INPUTS = [...REDACTION_INPUTS, ...INSTRUCTION_INPUTS];
const LEADING = FAKE_SECRETS.find((secret) => secret.family === 'aws_access_key_id')!;
const STRADDLING = FAKE_SECRETS.find((secret) => secret.family === 'github_token')!;
const principal = { tenant: 'tenant-acme', subject: 'user-42' };

/** Input `index`, 1 MB, with the leading secret's line first and the other secret 10 characters before the text budget's cut. */
function adversarialText(index: number): string {
  const body = INPUTS[index]!.build(MEGABYTE);
  const head = `${LEADING.carrier} `;
  const at = DEFAULT_BUDGET.maxTextChars - 10;
  const text = `${head}${body.slice(0, at - head.length - 1)} ${STRADDLING.secret} ${body.slice(at + STRADDLING.secret.length + 1)}`;
  // Flat, as text parsed from a response is (a concatenation is a rope, which the first slice would flatten).
  return JSON.parse(JSON.stringify(text)) as string;
}

const adversarial = defineTool({
  name: 'adversarial.read',
  description: 'Fetch a page that is 1 MB of the worst input for one pattern.',
  input: z.strictObject({
    input: z
      .number()
      .int()
      .nonnegative()
      .max(INPUTS.length - 1),
  }),
  output: z.strictObject({ body: z.string() }),
  effect: 'read',
  source: { label: 'web', type: 'http_api' },
  handler: (args) => {
    const text = adversarialText(args.input);
    return Promise.resolve({
      data: { body: text },
      untrusted: [{ text, source: 'https://example.com/page' }],
      evidence: [{ kind: 'page', locator: 'https://example.com/page', supports: ['/body'], quote: text }],
    });
  },
});

const stack = useRuntimeHarness('rel-megabyte', { extraTools: [adversarial] });

interface Measured {
  readonly target: string;
  readonly name: string;
  /** The call's funnel time: its least over the runs it took (see `RUNS`). */
  readonly funnelMs: number;
  /** The tool activity's time, scheduled to completed, in the run with the least funnel time. */
  readonly activityMs: number;
  readonly runs: number;
}

/**
 * Runs of one input at most: a call over the limit is run again, and passes on its first run under it. A busy shared
 * machine (or a garbage collection of the last megabytes) can slow one run; a super-linear pattern is slow every time.
 */
const RUNS = 4;

/** Scheduled-to-completed time of the workflow's one tool activity, from its history. */
async function activityMs(workflowId: string): Promise<number> {
  const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const at = (pick: (event: NonNullable<typeof history.events>[number]) => unknown) => {
    const time = (history.events ?? []).find((event) => pick(event))?.eventTime;
    return Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);
  };
  return (
    at((event) => event.activityTaskCompletedEventAttributes) -
    at((event) => event.activityTaskScheduledEventAttributes)
  );
}

/** One call through the stack with input `index`: checks what it shows, returns its funnel and activity times. */
async function callOnce(index: number, run: number): Promise<{ funnelMs: number; activityMs: number }> {
  const { client } = stack.temporal;
  const input = INPUTS[index]!;
  const workflowId = `megabyte-${index}-${run}`;
  const { modelResult } = (await client.workflow.execute('runToolCall', {
    taskQueue: stack.taskQueue,
    workflowId,
    args: [adversarial.name, { input: index }, { principal, readAttempts: 1 }],
  })) as ToolCallResult;
  const label = `${input.target} ${input.name}`;
  assertValidModelResult(modelResult, label);
  if (!input.build(64).isWellFormed()) {
    // Lone surrogates have no canonical form: such a page is refused, whatever its size.
    assert.equal(modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION', label);
  } else {
    assert.deepEqual([modelResult.status, modelResult.completeness.state], ['partial', 'truncated'], label);
    // What the model sees starts as the page does (its first secret hidden) and says it was cut.
    const body = (modelResult.data as { body: string }).body;
    assert.ok(
      body.startsWith(LEADING.carrier.replace(LEADING.secret, REDACTED_MARKER)) &&
        /…\[truncated \d+ chars\]$/.test(body),
      `${label}: ${body.slice(0, 80)}`,
    );
  }
  const shown = [
    JSON.stringify(modelResult),
    ...Object.values(adapterRenderings('call_mb', adversarial.name, modelResult)).map((value) => JSON.stringify(value)),
  ];
  for (const text of shown) for (const secret of [LEADING, STRADDLING]) assertHidden(text, secret, label);
  const history = await historyText(client, workflowId);
  assert.ok(history.text.includes('tool-result.model.v1'), `${label}: the decoded history holds the result`);
  for (const secret of [LEADING, STRADDLING])
    assert.ok(!history.text.includes(secret.secret), `${label}: ${secret.family} in the history`);
  assert.ok(
    history.largestPayloadBytes < 256 * 1024,
    `${label}: the history's largest payload is ${history.largestPayloadBytes} bytes`,
  );
  const [audit] = await stack.store.listAudits({ workflowId });
  const { total_ms: total, handler_ms: handler } = audit!.audit.timings;
  return { funnelMs: total - (handler ?? 0), activityMs: await activityMs(workflowId) };
}

test(
  `1 MB of the worst input of each of ${INPUTS.length} patterns: funnel under ${FUNNEL_LIMIT_MS} ms a call, no secret shown`,
  { timeout: 900_000 },
  async () => {
    const measured: Measured[] = [];
    // One call at a time: the funnel's time is the call's own, not a share of a crowd's.
    for (const [index, input] of INPUTS.entries()) {
      let best = await callOnce(index, 1);
      let runs = 1;
      while (best.funnelMs >= FUNNEL_LIMIT_MS && runs < RUNS) {
        runs += 1;
        const again = await callOnce(index, runs);
        if (again.funnelMs < best.funnelMs) best = again;
      }
      measured.push({ target: input.target, name: input.name, ...best, runs });
    }
    report(measured);
    const slow = measured.filter((m) => m.funnelMs >= FUNNEL_LIMIT_MS);
    assert.deepEqual(slow, [], 'every call’s funnel under the limit');
  },
);

function report(measured: readonly Measured[]): void {
  const percentile = (values: number[], p: number) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;
  const byTarget = new Map<string, Measured[]>();
  for (const m of measured) byTarget.set(m.target, [...(byTarget.get(m.target) ?? []), m]);
  const rows = [...byTarget].map(([target, ms]) => {
    const worst = ms.reduce((a, b) => (b.funnelMs > a.funnelMs ? b : a));
    return `| ${target} | ${ms.length} | ${worst.funnelMs} (${worst.name}) | ${Math.max(...ms.map((m) => m.activityMs))} |`;
  });
  const rerun = measured.filter((m) => m.runs > 1).map((m) => `${m.target} ${m.name} (${m.runs} runs)`);
  const funnel = measured.map((m) => m.funnelMs);
  const activity = measured.map((m) => m.activityMs);
  process.stdout.write(
    [
      '',
      '| pattern | inputs | slowest funnel, ms | slowest tool activity, ms |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
      `run again after a first run over the limit: ${rerun.length === 0 ? 'none' : rerun.join(', ')}`,
      `funnel ms: median ${percentile(funnel, 0.5)}, p95 ${percentile(funnel, 0.95)}, max ${Math.max(...funnel)}; tool activity (scheduled to completed) ms: median ${percentile(activity, 0.5)}, p95 ${percentile(activity, 0.95)}, max ${Math.max(...activity)}`,
      '',
    ].join('\n'),
  );
}
