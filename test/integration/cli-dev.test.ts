import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseEnv } from 'node:util';
import { Connection } from '@temporalio/client';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import {
  formatDecisionKey,
  signDecision,
  signedDecisions,
  signingKeyFromEnv,
  verifyingKeysFromEnv,
} from '../../src/decisions/index.js';
import { freePort } from '../../src/testing/free-port.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { processesWith, runCli, startCli, waitForText } from '../support/cli-process.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { databaseEnv, openTestDatabase, type TestDatabase } from '../support/postgres.js';

// `dev` and `migrate` as a user runs them: child processes, in a scratch project folder, on free ports.
let db: TestDatabase;
let project: string;
let cliEnv: Record<string, string>;
let password: string;

/** Asserts that nothing a CLI run printed holds the DATABASE_URL password (as written in the URL). */
function assertNoPassword(run: { stdout(): string; stderr(): string }): void {
  assert.ok(!run.stdout().includes(password), 'stdout shows no password');
  assert.ok(!run.stderr().includes(password), 'stderr shows no password');
}

before(
  async () => {
    db = await openTestDatabase('it-cli-dev', { migrate: false });
    project = mkdtempSync(join(tmpdir(), 'ttc-cli-dev-'));
    const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
    assert.ok(cli !== null, 'the Temporal CLI is installed (scripts/install-temporal-cli.sh)');
    // The test database's own schema and roles, as a user would put them in DATABASE_URL and DATABASE_OWNER_URL; the
    // application role's password must never be printed.
    cliEnv = { ...databaseEnv(db), TEMPORAL_CLI_PATH: cli.path };
    password = new URL(cliEnv['DATABASE_URL']!).password;
  },
  { timeout: 120_000 },
);

after(
  async () => {
    await db?.close();
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  },
  { timeout: 60_000 },
);

test(
  "migrate without DATABASE_OWNER_URL runs as DATABASE_URL's role: here one with no rights, so it fails and says what to set",
  { timeout: 120_000 },
  async () => {
    const appOnly = await runCli(['migrate'], { cwd: project, env: { DATABASE_URL: cliEnv['DATABASE_URL'] } });
    assert.equal(appOnly.code, EXIT_CODES.failure, appOnly.stderr);
    assert.match(appOnly.stderr, /migrating as DATABASE_URL failed: .*set DATABASE_OWNER_URL/);
    const ownerOnly = await runCli(['migrate'], {
      cwd: project,
      env: { DATABASE_OWNER_URL: cliEnv['DATABASE_OWNER_URL'] },
    });
    assert.equal(ownerOnly.code, EXIT_CODES.usage, ownerOnly.stderr);
    assert.match(ownerOnly.stderr, /DATABASE_OWNER_URL needs DATABASE_URL/);
    const sameRole = await runCli(['migrate'], {
      cwd: project,
      env: { DATABASE_URL: cliEnv['DATABASE_OWNER_URL'], DATABASE_OWNER_URL: cliEnv['DATABASE_OWNER_URL'] },
    });
    assert.equal(sameRole.code, EXIT_CODES.usage, sameRole.stderr);
    assert.match(sameRole.stderr, /cannot separate the application role from the owner/);
  },
);

test(
  "migrate applies every migration once as the owner, grants DATABASE_URL's role and prints them; a second run applies nothing",
  { timeout: 120_000 },
  async () => {
    const first = await runCli(['migrate'], { cwd: project, env: cliEnv });
    assert.equal(first.code, 0, first.stderr);
    const applied = JSON.parse(first.stdout) as {
      database: string;
      applied: { version: number; name: string }[];
      alreadyApplied: unknown[];
      appRole: string | null;
      warning?: string;
    };
    assert.equal(applied.database, 'DATABASE_URL');
    assert.equal(applied.appRole, db.appRole);
    assert.equal(applied.warning, undefined);
    assert.ok(applied.applied.length >= 1);
    assert.deepEqual(
      applied.applied.map((m) => m.version),
      applied.applied.map((_, index) => index + 1),
    );
    assert.ok(applied.applied.every((m) => /^\d{3}_[a-z0-9_]+\.sql$/.test(m.name)));
    assert.deepEqual(applied.alreadyApplied, []);
    const tables = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1`,
      [db.schema],
    );
    assert.ok(tables.rows[0]!.n > 1, 'the schema has the tables now');

    const second = await runCli(['migrate', '--json'], { cwd: project, env: cliEnv });
    assert.equal(second.code, 0, second.stderr);
    const again = JSON.parse(second.stdout) as typeof applied;
    assert.deepEqual(again.applied, []);
    assert.deepEqual(again.alreadyApplied, applied.applied);
  },
);

test(
  'a bad DATABASE_URL is a clear error: malformed → exit 2, unreachable → exit 4, and the password is never shown',
  { timeout: 120_000 },
  async () => {
    const malformed = await runCli(['migrate'], { cwd: project, env: { DATABASE_URL: 'not a url' } });
    assert.equal(malformed.code, EXIT_CODES.usage, malformed.stderr);
    assert.match(malformed.stderr, /DATABASE_URL is not a URL/);
    const wrongScheme = await runCli(['migrate'], { cwd: project, env: { DATABASE_URL: 'mysql://u:p@127.0.0.1/db' } });
    assert.equal(wrongScheme.code, EXIT_CODES.usage, wrongScheme.stderr);
    const port = await freePort();
    const unreachable = await runCli(['migrate'], {
      cwd: project,
      env: { DATABASE_URL: `postgres://someone:s3cret-pw@127.0.0.1:${port}/db` },
    });
    assert.equal(unreachable.code, EXIT_CODES.unavailable, unreachable.stderr);
    assert.match(unreachable.stderr, /cannot connect to DATABASE_URL/);
    assert.doesNotMatch(unreachable.stderr, /s3cret-pw/);
    assert.equal(unreachable.stdout, '');
  },
);

test(
  'dev starts the Temporal server with its UI and a migrated database, prints the addresses, and stops everything on SIGINT',
  { timeout: 240_000 },
  async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const dev = startCli(['dev', '--json', '--port', String(port)], {
      cwd: project,
      env: { ...cliEnv, TTC_DEV_UI_PORT: String(uiPort) },
    });
    try {
      const ready = await dev.waitForEvent('ready', 180_000);
      assert.equal(ready['temporalAddress'], `127.0.0.1:${port}`);
      assert.equal(ready['uiUrl'], `http://127.0.0.1:${uiPort}`);
      assert.equal(ready['namespace'], 'default');
      assert.equal(ready['database'], 'DATABASE_URL');
      assert.equal(ready['temporalDataFile'], join(project, '.data', 'temporal', 'dev.sqlite'));
      assert.ok(existsSync(String(ready['temporalDataFile'])), 'the dev server persists to the SQLite file');
      assert.match(dev.stderr(), /starting the Temporal dev server/, 'progress goes to stderr with --json');
      assert.equal(
        ready['databaseUrl'],
        cliEnv['DATABASE_URL']?.replace(`:${password}@`, ':***@'),
        'the URL, with its password masked',
      );

      // The server answers, with the package's search attributes registered, and the UI serves pages.
      const connection = await Connection.connect({ address: String(ready['temporalAddress']) });
      try {
        const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
        assert.ok(Object.keys(attributes.customAttributes ?? {}).includes('TtcApprovalPending'));
      } finally {
        await connection.close();
      }
      const ui = await fetch(String(ready['uiUrl']));
      assert.equal(ui.status, 200);
      assert.equal(processesWith('server start-dev', `--port ${port}`).length, 1, 'one dev server process');

      // The same port again: a clear error, not a server that dies with a log line nobody reads.
      const clash = await runCli(['dev', '--port', String(port), '--ui-port', String(await freePort())], {
        cwd: project,
        env: cliEnv,
      });
      assert.equal(clash.code, EXIT_CODES.unavailable, clash.stderr);
      assert.match(clash.stderr, new RegExp(`port ${port} for the Temporal frontend \\(gRPC\\) is already in use`));

      dev.child.kill('SIGINT');
      assert.equal(await dev.exited(60_000), 0, dev.stderr());
      assert.ok(dev.events().some((event) => event.event === 'stopped'));
      assertNoPassword(dev);
      assert.deepEqual(processesWith('server start-dev', `--port ${port}`), [], 'the dev server process is gone');
      const refused = await fetch(String(ready['uiUrl'])).then(
        () => 'answered',
        () => 'refused',
      );
      assert.equal(refused, 'refused', 'the UI is gone');
    } finally {
      if (dev.child.exitCode === null) dev.child.kill('SIGKILL');
    }
  },
);

test(
  'dev in text mode prints the addresses and the environment to export, never the DATABASE_URL password',
  { timeout: 240_000 },
  async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const dev = startCli(['dev', '--port', String(port), '--ui-port', String(uiPort)], { cwd: project, env: cliEnv });
    try {
      await waitForText(dev, 'Ctrl-C stops everything.', 180_000);
      assert.ok(
        dev.stdout().includes(String(cliEnv['DATABASE_URL']).replace(`:${password}@`, ':***@')),
        'the URL is named, masked',
      );
      // The printed exports, run as printed with the same DATABASE_URL (as the output says), point an operator command
      // at this stack.
      const exported: Record<string, string> = {};
      for (const [, name = '', value = ''] of dev.stdout().matchAll(/^\s*export (\w+)=(\S+)$/gm))
        exported[name] = value;
      assert.deepEqual(Object.keys(exported).sort(), ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE']);
      assert.match(dev.stdout(), /# and the same DATABASE_URL and DATABASE_OWNER_URL as here/);
      const pending = await runCli(['pending'], {
        cwd: project,
        env: { ...exported, DATABASE_URL: cliEnv['DATABASE_URL'], DATABASE_SCHEMA: cliEnv['DATABASE_SCHEMA'] },
      });
      assert.equal(pending.code, 0, pending.stderr);
      assert.deepEqual(JSON.parse(pending.stdout), { workflows: [] });
      dev.child.kill('SIGINT');
      assert.equal(await dev.exited(60_000), 0, dev.stderr());
      assertNoPassword(dev);
    } finally {
      if (dev.child.exitCode === null) dev.child.kill('SIGKILL');
    }
  },
);

test(
  'dev --write-env writes, privately, exactly the environment a worker of your own needs, and a worker run with it serves the stack',
  { timeout: 300_000 },
  async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const dev = startCli(['dev', '--port', String(port), '--ui-port', String(uiPort), '--write-env', '.env.dev'], {
      cwd: project,
      env: cliEnv,
    });
    let worker: ReturnType<typeof startCli> | undefined;
    try {
      await waitForText(dev, 'Ctrl-C stops everything.', 180_000);
      const file = join(project, '.env.dev');
      assert.equal(statSync(file).mode & 0o777, 0o600, 'private: it holds passwords and a signing key');
      assert.match(
        dev.stdout(),
        /its environment \(database URLs with passwords, decision keys\) is in \.env\.dev \(mode 0600\)/,
      );
      // Read as `node --env-file` reads it.
      const written = parseEnv(readFileSync(file, 'utf8'));
      assert.deepEqual(Object.keys(written).sort(), [
        'DATABASE_OWNER_URL',
        'DATABASE_SCHEMA',
        'DATABASE_URL',
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TTC_DECISION_KEY',
        'TTC_DECISION_VERIFY_KEYS',
      ]);
      assert.deepEqual(
        [
          written['TEMPORAL_ADDRESS'],
          written['TEMPORAL_NAMESPACE'],
          written['DATABASE_URL'],
          written['DATABASE_OWNER_URL'],
          written['DATABASE_SCHEMA'],
        ],
        [
          `127.0.0.1:${port}`,
          'default',
          cliEnv['DATABASE_URL'],
          cliEnv['DATABASE_OWNER_URL'],
          cliEnv['DATABASE_SCHEMA'],
        ],
      );
      // The project's key pair: what an approval service signs with the one, a worker verifies with the other.
      const signing = signingKeyFromEnv(written);
      const token = signDecision(
        {
          kind: 'approval',
          workflowId: 'wf',
          runId: 'r',
          callId: 'c',
          requestSha256: 'a'.repeat(64),
          decision: 'approve',
          decidedBy: 'alice',
        },
        signing,
      );
      assert.equal(
        (signedDecisions({ keys: verifyingKeysFromEnv(written) }).authenticate(token) as { ok: boolean }).ok,
        true,
      );
      const material = formatDecisionKey(signing, 'signing').split(':')[2]!;
      for (const text of [dev.stdout(), dev.stderr()])
        assert.ok(!text.includes(material), 'the signing key is never printed');
      assertNoPassword(dev);

      // A worker given only this environment (run elsewhere, so nothing of the project folder helps) connects to both.
      const elsewhere = mkdtempSync(join(tmpdir(), 'ttc-own-worker-'));
      try {
        worker = startCli(['worker'], {
          cwd: elsewhere,
          env: { ...Object.fromEntries(Object.keys(cliEnv).map((name) => [name, undefined])), ...written },
        });
        await waitForText(worker, 'Ctrl-C (or SIGTERM) stops it.', 120_000);
        assert.match(worker.stdout(), new RegExp(`worker running on task queue '[^']+' at 127\\.0\\.0\\.1:${port}`));
        assert.match(worker.stdout(), /decisions: signed; 1 verifying key\(s\) from the environment/);
        worker.child.kill('SIGINT');
        assert.equal(await worker.exited(60_000), 0, worker.stderr());
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
      dev.child.kill('SIGINT');
      assert.equal(await dev.exited(60_000), 0, dev.stderr());
    } finally {
      if (worker !== undefined && worker.child.exitCode === null) worker.child.kill('SIGKILL');
      if (dev.child.exitCode === null) dev.child.kill('SIGKILL');
    }
  },
);

test('dev refuses a taken UI port and bad port settings', { timeout: 120_000 }, async () => {
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const takenPort = (taken.address() as { port: number }).port;
  try {
    const clash = await runCli(['dev', '--port', String(await freePort()), '--ui-port', String(takenPort)], {
      cwd: project,
      env: cliEnv,
    });
    assert.equal(clash.code, EXIT_CODES.unavailable, clash.stderr);
    assert.match(clash.stderr, /for the Temporal UI is already in use: .*--ui-port/);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
  const badFlag = await runCli(['dev', '--port', '70000'], { cwd: project, env: cliEnv });
  assert.equal(badFlag.code, EXIT_CODES.usage);
  assert.match(badFlag.stderr, /--port must be a TCP port/);
  const badEnv = await runCli(['dev'], { cwd: project, env: { ...cliEnv, TTC_DEV_PORT: 'seven' } });
  assert.equal(badEnv.code, EXIT_CODES.usage);
  assert.match(badEnv.stderr, /TTC_DEV_PORT must be a TCP port/);
});
