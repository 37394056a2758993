import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../../src/testing/free-port.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { processesWith, runCli } from '../support/cli-process.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

// `npm start` as a user runs it: one process, a fresh project folder (its own embedded Postgres and Temporal state),
// free ports; --exit so it stops after the summary.
const project = mkdtempSync(join(tmpdir(), 'ttc-cli-start-'));
// Readable like a usual project folder: as root, the embedded Postgres runs as the `postgres` user, who must reach it.
chmodSync(project, 0o755);

after(() => rmSync(project, { recursive: true, force: true }));

test(
  'start --exit --auto-approve brings up the stack, runs the demo to a summary, stops everything and exits 0',
  { timeout: 420_000 },
  async () => {
    const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
    assert.ok(cli !== null, 'the Temporal CLI is installed (scripts/install-temporal-cli.sh)');
    const [port, uiPort] = [await freePort(), await freePort()];
    const run = await runCli(
      ['start', '--exit', '--auto-approve', '--json', '--port', String(port), '--ui-port', String(uiPort)],
      {
        cwd: project,
        env: { TEMPORAL_CLI_PATH: cli.path, DATABASE_URL: undefined },
        timeoutMs: 400_000,
      },
    );
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.deepEqual(
      run.events.map((event) => event.event),
      ['ready', 'summary', 'stopped'],
      'stdout carries only the JSON events',
    );

    const ready = run.events[0]!;
    assert.equal(ready['temporalAddress'], `127.0.0.1:${port}`);
    assert.equal(ready['uiUrl'], `http://127.0.0.1:${uiPort}`);
    assert.equal(ready['database'], 'embedded');
    // The embedded cluster's password (kept beside its data) is never printed, not even in the ready event's URL.
    const password = readFileSync(join(project, '.data', 'postgres', 'main.ttc-password'), 'utf8').trim();
    assert.ok(password.length > 0);
    assert.ok(!run.stdout.includes(password) && !run.stderr.includes(password), 'no password on the terminal');
    assert.match(String(ready['databaseUrl']), /^postgres:\/\/ttc_app:\*\*\*@127\.0\.0\.1:\d+\/postgres$/);

    const { succeeded, uiUrl, consoleUrl, summary } = run.events[1] as unknown as {
      succeeded: boolean;
      uiUrl: string;
      consoleUrl: string;
      summary: {
        status: string;
        agentStatus: string;
        refundsCommitted: number;
        approvalMode: string;
        approval: { approvers: string[] } | null;
      };
    };
    assert.equal(succeeded, true);
    assert.equal(uiUrl, `http://127.0.0.1:${uiPort}`);
    assert.match(consoleUrl, /^http:\/\/127\.0\.0\.1:\d+$/, 'the operator console runs next to the UI');
    assert.match(run.stderr, /Operator console {5}http:\/\/127\.0\.0\.1:\d+/);
    assert.equal(summary.status, 'COMPLETED');
    assert.equal(summary.agentStatus, 'final');
    assert.equal(summary.refundsCommitted, 1);
    assert.equal(summary.approvalMode, 'auto');
    assert.ok((summary.approval?.approvers.length ?? 0) >= 1, 'the refund was approved');

    // Progress went to stderr as it happened, and nothing is left running.
    assert.match(run.stderr, /starting the Temporal dev server/);
    assert.match(run.stderr, /running the demo support agent/);
    assert.deepEqual(processesWith('server start-dev', `--port ${port}`), []);
    assert.deepEqual(processesWith('postgres', join(project, '.data', 'postgres')), []);
  },
);
