import { randomBytes } from 'node:crypto';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { DecisionKey } from '../decisions/keys.js';
import type { ToolStore } from '../store/index.js';
import {
  AGENT_TRANSCRIPT_QUERY,
  PENDING_APPROVALS_QUERY,
  RECONCILE_STATE_SA,
  reconcileWorkflowId,
  type PendingApproval,
} from '../temporal/index.js';
import type { ModelMessage } from '../../workflows/index.js';
import { approveCommand, approvePending } from './approve-pending.js';
import { DEMO_TASK_QUEUE, DEMO_TOOLS, SUPPORT_DEMO_WORKFLOW_TYPE } from './demo-names.js';
import { supportDemoInput } from './demo-input.js';
import { DemoProgress, type DemoSnapshot } from './progress.js';
import type { DemoServices } from './services.js';
import { buildDemoSummary, type DemoSummary } from './summary.js';
import type { SupportDemoResult } from './support-agent-workflow.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  readonly client: Client;
  /** The store the demo worker writes to (read for the summary: state patches, evidence, reconciliation). */
  readonly store: ToolStore;
  /** The services the demo worker's tools are bound to (same process). */
  readonly services: DemoServices;
  /** Task queue of a worker started with `DEMO_WORKFLOWS_PATH` and the demo tools (default `DEMO_TASK_QUEUE`). */
  readonly taskQueue?: string;
  /** Default: `support-demo-<time>-<random>`. */
  readonly workflowId?: string;
  /** `auto`: the demo approves the refund itself, through the validated update; `manual`: it waits for an operator. */
  readonly approval: 'auto' | 'manual';
  /** Who approves in `auto` mode (recorded in history and the audit). Default `demo-auto-approver`. */
  readonly autoApprover?: string;
  /** The key `auto` mode signs its approval with (the demo worker verifies it); `null`: unsigned. */
  readonly signingKey?: DecisionKey | null;
  /** How long the refund may wait for a decision before it fails closed (default 2 min auto, 30 min manual). */
  readonly approvalTimeoutMs?: number;
  /** Where the operator console serves, if one does: the manual approval path points to it. */
  readonly consoleUrl?: string;
  /** How the CLI runs where the lines are printed (`npx tool-contract`, `npm run cli --`): the prefix of the commands they show. */
  readonly cli: string;
  /** Receives human-readable progress lines, each step once. */
  readonly onProgress: (line: string) => void;
  /** How often the running workflow is polled (default 300 ms). */
  readonly pollIntervalMs?: number;
}

/**
 * Runs the demo support agent on one fresh case and returns its summary: starts the workflow, reports progress
 * while it runs (approving the refund itself in `auto` mode, printing the `tool-contract approve` command in
 * `manual` mode), then reads the outcome from Temporal, the store and the payment provider. Rejects if the
 * workflow fails.
 */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const { client, approval, onProgress } = options;
  if (approval !== 'auto' && approval !== 'manual')
    throw new TypeError(`approval must be 'auto' or 'manual' (got ${String(approval)})`);
  const startedAt = Date.now();
  const demoCase = options.services.openCase();
  const workflowId =
    options.workflowId ??
    `support-demo-${new Date(startedAt).toISOString().replace(/[-:.TZ]/g, '')}-${randomBytes(2).toString('hex')}`;
  const taskQueue = options.taskQueue ?? DEMO_TASK_QUEUE;
  const input = supportDemoInput(demoCase, {
    approvalTimeoutMs: options.approvalTimeoutMs ?? (approval === 'auto' ? 120_000 : 1_800_000),
  });
  const handle = await client.workflow.start(SUPPORT_DEMO_WORKFLOW_TYPE, {
    taskQueue,
    workflowId,
    args: [input],
    staticSummary: `Support agent demo: refund for damaged order ${demoCase.orderId}`,
    staticDetails: `Scripted model; tools ${Object.values(DEMO_TOOLS).join(', ')}; approval: ${approval}.`,
  });
  onProgress(
    `▶ workflow ${workflowId} started on task queue ${taskQueue} (customer ${demoCase.customerId}, order ${demoCase.orderId})`,
  );

  const approved = new Map<string, PendingApproval>();
  const manualLine = (pending: PendingApproval) => {
    const command = approveCommand(options.cli, workflowId, pending);
    return options.consoleUrl === undefined
      ? `    approve with: ${command}`
      : `    approve it in the operator console, ${options.consoleUrl} (or with: ${command})`;
  };
  const progress = new DemoProgress((pending) => (approval === 'manual' ? manualLine(pending) : null));
  let transcript: readonly ModelMessage[] = [];
  const poll = async () => {
    const snapshot = await takeSnapshot(client, handle, [...approved.keys()]);
    transcript = snapshot.transcript;
    for (const line of progress.observe(snapshot)) onProgress(line);
    for (const pending of snapshot.pending) {
      if (approved.has(pending.callId)) continue;
      approved.set(pending.callId, pending);
      if (approval === 'auto') {
        const approver = options.autoApprover ?? 'demo-auto-approver';
        const answer = await approvePending(client, pending, approver, options.signingKey ?? null);
        onProgress(
          answer.accepted
            ? `  ✔ approved by ${answer.decision.decided_by} (${answer.decision.method}) through the approval update`
            : `  ! the approval was refused: ${answer.reason}`,
        );
      }
    }
  };

  const settled = handle.result().then(
    (value: SupportDemoResult) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let done = false;
  void settled.then(() => (done = true));
  const problems = new Set<string>();
  while (!done) {
    await poll().catch((error: unknown) => {
      // Progress is best effort (the workflow runs on regardless); each distinct problem is reported once.
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (!problems.has(message)) onProgress(`  ! progress: ${message}`);
      problems.add(message);
    });
    await Promise.race([settled, delay(options.pollIntervalMs ?? 300)]);
  }
  const outcome = await settled;
  if (!outcome.ok) throw new Error(`demo workflow ${workflowId} failed`, { cause: outcome.error });
  await poll().catch(() => undefined);
  const result = outcome.value;
  const patch = result.writeBack?.patch?.patch;
  if (patch !== undefined)
    onProgress(`  ✔ state patch ${patch.key} v${patch.version} written, citing ${patch.evidenceIds.join(', ')}`);
  onProgress(`■ workflow ${workflowId} finished: agent ${result.agent.status}`);
  const [first] = approved.values();
  return buildDemoSummary({
    client,
    store: options.store,
    services: options.services,
    handle,
    result,
    transcript,
    demoCase,
    approvalMode: approval,
    approval: first === undefined ? null : { callId: first.callId, requestSha256: first.preview.requestSha256 },
    startedAt,
  });
}

/** One look at the running workflow; parts that cannot be read yet (no worker answered, no child yet) are empty. */
async function takeSnapshot(
  client: Client,
  handle: WorkflowHandle,
  writeCallIds: readonly string[],
): Promise<DemoSnapshot> {
  // Read in this order so the transcript is the newest part: a call waiting for approval, or a reconciliation, is
  // then always preceded by the model turn that asked for it.
  const pending = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY).catch(() => [] as PendingApproval[]);
  let reconciliation: DemoSnapshot['reconciliation'] = null;
  for (const callId of writeCallIds) {
    // The refund has no business key, so its idempotency key is `<workflow id>:<call id>` (docs/temporal-runtime.md).
    const childId = reconcileWorkflowId(`${handle.workflowId}:${callId}`);
    try {
      const child = await client.workflow.getHandle(childId).describe();
      reconciliation = {
        workflowId: childId,
        state: child.typedSearchAttributes.get(RECONCILE_STATE_SA) ?? null,
        closed: child.status.name !== 'RUNNING',
      };
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY).catch(() => [] as ModelMessage[]);
  return { transcript, pending, reconciliation };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
