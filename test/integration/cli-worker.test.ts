import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { formatDecisionKey, generateDecisionKey } from '../../src/decisions/index.js';
import { principalRef } from '../../src/contract/principal-ref.js';
import { freePort } from '../../src/testing/free-port.js';
import { PENDING_APPROVALS_QUERY } from '../../src/wire/names.js';
import type { ToolCallResult } from '../../workflows/index.js';
import { runCli, runShellLine, startCli } from '../support/cli-process.js';
import { useCliStack } from '../support/cli-stack.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

// `tool-contract worker` as a child process against this file's dev server and database, configured as a deployment
// is: DATABASE_URL the application role, DATABASE_OWNER_URL the owner, and a principal key.
const PRINCIPAL_KEY = 'cli-worker-test-principal-key-0123456789';

const stack = useCliStack('it-cli-worker', { TTC_PRINCIPAL_KEY: PRINCIPAL_KEY });

test(
  "worker --tools runs the user's tools with the plugin, migrates the database as the owner, keys principal references, and exits cleanly on SIGTERM",
  { timeout: 240_000 },
  async () => {
    const taskQueue = `cli-worker-${process.pid}`;
    const metricsBind = `127.0.0.1:${await freePort()}`;
    const worker = startCli(
      [
        'worker',
        '--json',
        '--tools',
        'test/support/cli-worker-tools.ts',
        '--workflows',
        'test/support/test-workflows.ts',
        '--task-queue',
        taskQueue,
      ],
      { env: { ...stack.env, TTC_METRICS_BIND: metricsBind } },
    );
    try {
      const ready = await worker.waitForEvent('ready', 180_000);
      assert.equal(ready['taskQueue'], taskQueue);
      assert.deepEqual(ready['tools'], ['orders.get']);
      assert.equal(ready['temporalAddress'], stack.temporal.server.address);

      const workflowId = `cli-worker-call-${process.pid}`;
      const result = (await stack.temporal.client.workflow.execute('runToolCall', {
        taskQueue,
        workflowId,
        args: ['orders.get', { order_id: 'ord_1001' }, { principal: { tenant: 't-1', subject: 'u-1' } }],
      })) as ToolCallResult;
      assert.equal(result.modelResult.status, 'succeeded');
      assert.deepEqual((result.modelResult.data as { id: string }).id, 'ord_1001');
      // The worker migrated the empty schema and its plugin wrote the audit there.
      const audits = await stack.db.store().listAudits({ workflowId });
      assert.equal(audits.length, 1);
      assert.equal(audits[0]!.audit.tool, 'orders.get');
      assert.equal(audits[0]!.audit.principal_ref, principalRef({ tenant: 't-1', subject: 'u-1' }, PRINCIPAL_KEY));
      const owners = await stack.db.ownerPool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema() AND tableowner = $1',
        [stack.db.appRole],
      );
      assert.equal(owners.rows[0]!.n, 0, 'the owner migrated: the application role owns no table');
      assert.doesNotMatch(
        worker.stderr(),
        /DATABASE_OWNER_URL is not set|TTC_PRINCIPAL_KEY is not set/,
        'split roles and a key: nothing to warn about',
      );
      // TTC_METRICS_BIND: the runtime serves the package's metrics next to the SDK's.
      const scrape = await (await fetch(`http://${metricsBind}/metrics`)).text();
      assert.match(scrape, /^ttc_tool_results\{[^}]*tool="orders\.get"[^}]*\} 1$/m, 'the call counted');
      assert.match(scrape, /^ttc_pending_approvals(\{[^}]*\})? 0$/m, 'the gauges are sampled');

      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited(60_000), 0, worker.stderr());
      assert.ok(worker.events().some((event) => event.event === 'stopped'));
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  },
);

test(
  'worker: an unreachable Temporal server is exit 4 with a hint; bad modules and flags are usage errors',
  { timeout: 180_000 },
  async () => {
    const unreachable = await runCli(['worker'], {
      env: { ...stack.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` },
    });
    assert.equal(unreachable.code, EXIT_CODES.unavailable, unreachable.stderr);
    assert.match(unreachable.stderr, /cannot reach the Temporal server at 127\.0\.0\.1:\d+/);

    const missingModule = await runCli(['worker', '--tools', 'no/such/module.ts', '--task-queue', 'q'], {
      env: stack.env,
    });
    assert.equal(missingModule.code, EXIT_CODES.usage, missingModule.stderr);
    assert.match(missingModule.stderr, /--tools: no such file/);
    const notTools = await runCli(['worker', '--tools', 'test/support/tools.ts', '--task-queue', 'q'], {
      env: stack.env,
    });
    assert.equal(notTools.code, EXIT_CODES.usage, notTools.stderr);
    assert.match(notTools.stderr, /must export `tools`/);
    const noQueue = await runCli(['worker', '--tools', 'test/support/cli-worker-tools.ts'], { env: stack.env });
    assert.equal(noQueue.code, EXIT_CODES.usage);
    assert.match(noQueue.stderr, /--task-queue/);
    const badBind = await runCli(['worker', '--tools', 'test/support/cli-worker-tools.ts', '--task-queue', 'q'], {
      env: { ...stack.env, TTC_METRICS_BIND: 'no-port-here' },
    });
    assert.equal(badBind.code, EXIT_CODES.usage, badBind.stderr);
    assert.match(badBind.stderr, /TTC_METRICS_BIND must be host:port/);
    const shortKey = await runCli(['worker', '--tools', 'test/support/cli-worker-tools.ts', '--task-queue', 'q'], {
      env: { ...stack.env, TTC_PRINCIPAL_KEY: 'too-short-a-key' },
    });
    assert.equal(shortKey.code, EXIT_CODES.usage, shortKey.stderr);
    assert.match(shortKey.stderr, /TTC_PRINCIPAL_KEY must be at least 32 bytes/);
    assert.doesNotMatch(shortKey.stderr, /too-short-a-key/, 'the key is never printed');
    // The demo's tools include one that requires approval: with no key to verify decisions, the worker does not start.
    const keyless = await runCli(['worker'], { env: stack.env, cwd: mkdtempSync(join(tmpdir(), 'ttc-no-keys-')) });
    assert.equal(keyless.code, EXIT_CODES.usage, keyless.stderr);
    assert.match(
      keyless.stderr,
      /refunds\.create requires approval, and this worker has no key to verify decisions with: set TTC_DECISION_VERIFY_KEYS/,
    );
  },
);

test(
  'worker without --tools serves the demo (as docker-compose runs it); demo --auto-approve runs beside it on its own queue and keeps running for inspection until SIGINT',
  { timeout: 300_000 },
  async () => {
    // The approval service's key: the worker verifies with its public half, the auto-approving demo signs with it.
    const signing = {
      ...stack.env,
      TTC_DECISION_KEY: formatDecisionKey(generateDecisionKey('ed25519', 'cli-worker'), 'signing'),
    };
    const worker = startCli(['worker', '--json'], { env: signing });
    try {
      const ready = await worker.waitForEvent('ready', 180_000);
      assert.equal(ready['taskQueue'], 'ttc-demo');
      assert.deepEqual([...(ready['tools'] as string[])].sort(), [
        'kb.search',
        'orders.get',
        'orders.list',
        'refunds.create',
      ]);

      // Without --exit the demo keeps its worker running for inspection after the summary, until SIGINT.
      const demo = startCli(['demo', '--auto-approve', '--json'], { env: signing });
      try {
        const summary = (await demo.waitForEvent('summary', 240_000)) as {
          succeeded?: boolean;
          uiUrl?: unknown;
          summary?: { status: string; refundsCommitted: number; workflowId: string };
        };
        assert.equal(summary.succeeded, true);
        assert.equal(summary.uiUrl, null, 'demo does not own a server, so it knows no UI');
        assert.equal(summary.summary?.status, 'COMPLETED');
        assert.equal(summary.summary?.refundsCommitted, 1);
        const handle = stack.temporal.client.workflow.getHandle(String(summary.summary?.workflowId));
        assert.match(
          (await handle.describe()).taskQueue,
          /^ttc-demo-\d+$/,
          'the demo used its own queue, not the one the worker polls',
        );
        await new Promise((resolve) => setTimeout(resolve, 1000));
        assert.equal(demo.child.exitCode, null, 'still running for inspection');
        assert.ok(
          (await handle.query<unknown[]>(PENDING_APPROVALS_QUERY)).length === 0,
          'its worker still answers queries',
        );
        demo.child.kill('SIGINT');
        assert.equal(await demo.exited(60_000), 0, demo.stderr());
        assert.deepEqual(
          demo.events().map((event) => event.event),
          ['summary', 'stopped'],
        );
      } finally {
        if (demo.child.exitCode === null) demo.child.kill('SIGKILL');
      }

      worker.child.kill('SIGINT');
      assert.equal(await worker.exited(60_000), 0, worker.stderr());
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  },
);

test(
  'demo without --auto-approve waits for the operator: every command line it prints runs as printed from the clone',
  { timeout: 300_000 },
  async () => {
    // As `npm start` runs it in a clone: the source through tsx, so the lines it prints start with `npm run cli --`.
    const demo = startCli(['demo', '--exit'], { env: stack.env });
    try {
      const deadline = Date.now() + 240_000;
      let printed: RegExpExecArray | null = null;
      while (printed === null) {
        // The manual path points to the operator console and gives the CLI command beside it.
        printed = /\(or with: (.+ approve \S+ \S+ --digest [0-9a-f]{64} --approver) <you>\)\n/.exec(demo.stdout());
        assert.ok(
          demo.child.exitCode === null && Date.now() < deadline,
          `the demo printed no approve command\n${demo.stdout()}\n${demo.stderr()}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      assert.match(printed[1]!, /^npm run cli -- approve /);
      const approve = await runShellLine(`${printed[1]!} ops@example.com`, { cwd: PROJECT_ROOT, env: stack.env });
      assert.equal(approve.code, 0, approve.stderr);
      assert.equal(
        (JSON.parse(approve.stdout.slice(approve.stdout.indexOf('{'))) as { accepted: boolean }).accepted,
        true,
      );

      assert.equal(await demo.exited(180_000), 0, demo.stderr());
      assert.match(demo.stdout(), /approved by ops@example\.com/);
      const hints = /Inspect: (.+) {3}· {3}pending: (.+) {3}· {3}unsettled: (.+)\n/.exec(demo.stdout());
      assert.ok(hints !== null, demo.stdout());
      for (const line of hints.slice(1)) {
        const ran = await runShellLine(line, { cwd: PROJECT_ROOT, env: stack.env });
        assert.equal(ran.code, 0, `${line}\n${ran.stderr}`);
      }
    } finally {
      if (demo.child.exitCode === null) demo.child.kill('SIGKILL');
    }
  },
);
