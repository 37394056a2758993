import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import type { ToolCallResult } from '../../workflows/index.js';
import { runCli, startCli } from '../support/cli-process.js';
import { databaseEnv, openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { issueTestPki, startMutualTlsProxy, type TlsProxy } from '../support/tls-proxy.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';

// A worker and an operator command that know the dev server only through a temporal.toml profile: TEMPORAL_ADDRESS
// and TEMPORAL_NAMESPACE are unset and the server listens on a free port, so the profile is the only way there.
let temporal: TestTemporal;
let db: TestDatabase;
let folder: string;
let configFile: string;
let env: Record<string, string | undefined>;
let proxy: TlsProxy;

before(
  async () => {
    [temporal, db] = await Promise.all([startTestTemporal(), openTestDatabase('it-cli-profile', { migrate: false })]);
    folder = mkdtempSync(join(tmpdir(), 'ttc-cli-profile-'));
    configFile = join(folder, 'temporal.toml');
    // The dev server has no TLS: a mutual-TLS proxy in front of it stands in for a Cloud endpoint.
    const pki = issueTestPki(folder);
    proxy = await startMutualTlsProxy(pki, temporal.server.address);
    const tls = (name: string, clientCert: boolean) => [
      `[profile.${name}]`,
      `address = "${proxy.address}"`,
      `namespace = "${temporal.server.namespace}"`,
      `[profile.${name}.tls]`,
      `server_ca_cert_path = "${pki.caCert}"`,
      'server_name = "localhost"',
      ...(clientCert ? [`client_cert_path = "${pki.clientCert}"`, `client_key_path = "${pki.clientKey}"`] : []),
    ];
    writeFileSync(
      configFile,
      [
        '[profile.dev]',
        `address = "${temporal.server.address}"`,
        `namespace = "${temporal.server.namespace}"`,
        '[profile.elsewhere]',
        `address = "${temporal.server.address}"`,
        'namespace = "no-such-namespace"',
        ...tls('mtls', true),
        ...tls('mtls-without-cert', false),
      ].join('\n'),
    );
    env = {
      ...databaseEnv(db),
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_NAMESPACE: undefined,
      TEMPORAL_PROFILE: undefined,
      TEMPORAL_CONFIG_FILE: undefined,
    };
  },
  { timeout: 180_000 },
);

after(
  async () => {
    await proxy?.close();
    await temporal?.stop();
    await db?.close();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  },
  { timeout: 60_000 },
);

/** Runs one read through the worker on `taskQueue` (the client knows the server directly) and returns its workflow id. */
async function callOrderOn(taskQueue: string, workflowId: string): Promise<string> {
  const result = (await temporal.client.workflow.execute('runToolCall', {
    taskQueue,
    workflowId,
    args: ['orders.get', { order_id: 'ord_1001' }, { principal: { tenant: 't-1', subject: 'u-1' } }],
  })) as ToolCallResult;
  assert.equal(result.modelResult.status, 'succeeded');
  return workflowId;
}

async function stopWorker(worker: ReturnType<typeof startCli>): Promise<void> {
  worker.child.kill('SIGTERM');
  if ((await worker.exited(60_000).catch(() => null)) === null) worker.child.kill('SIGKILL');
}

test(
  'a worker connects through TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE and an operator command through --profile / --config-file',
  { timeout: 240_000 },
  async () => {
    const taskQueue = `cli-profile-${process.pid}`;
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
      {
        env: { ...env, TEMPORAL_PROFILE: 'dev', TEMPORAL_CONFIG_FILE: configFile },
      },
    );
    try {
      const ready = await worker.waitForEvent('ready', 180_000);
      assert.equal(ready['temporalAddress'], temporal.server.address);
      const workflowId = await callOrderOn(taskQueue, `cli-profile-call-${process.pid}`);

      const pending = await runCli(['pending', workflowId, '--profile', 'dev', '--config-file', configFile], { env });
      assert.equal(pending.code, EXIT_CODES.ok, pending.stderr);
      const { workflows } = JSON.parse(pending.stdout) as { workflows: { workflowId: string; approvals: unknown[] }[] };
      assert.deepEqual(
        workflows.map((entry) => [entry.workflowId, entry.approvals]),
        [[workflowId, []]],
      );
    } finally {
      await stopWorker(worker);
    }
  },
);

test(
  "the profile's namespace is the one used, and a profile that does not exist is bad input",
  { timeout: 180_000 },
  async () => {
    const elsewhere = await runCli(['worker', '--profile', 'elsewhere', '--config-file', configFile], { env });
    assert.equal(elsewhere.code, EXIT_CODES.namespaceNotFound, elsewhere.stderr);
    const missing = await runCli(['pending', '--profile', 'nope', '--config-file', configFile], { env });
    assert.equal(missing.code, EXIT_CODES.usage, missing.stderr);
  },
);

test(
  "over mutual TLS: a worker and an operator command connect with the profile's client certificate, and not without it",
  { timeout: 240_000 },
  async () => {
    const taskQueue = `cli-profile-tls-${process.pid}`;
    const worker = startCli(
      [
        'worker',
        '--json',
        '--profile',
        'mtls',
        '--config-file',
        configFile,
        '--tools',
        'test/support/cli-worker-tools.ts',
        '--workflows',
        'test/support/test-workflows.ts',
        '--task-queue',
        taskQueue,
      ],
      { env },
    );
    try {
      const ready = await worker.waitForEvent('ready', 180_000);
      assert.equal(ready['temporalAddress'], proxy.address);
      const workflowId = await callOrderOn(taskQueue, `cli-profile-tls-call-${process.pid}`);

      const pending = await runCli(['pending', workflowId, '--profile', 'mtls', '--config-file', configFile], { env });
      assert.equal(pending.code, EXIT_CODES.ok, pending.stderr);
      const refused = await runCli(
        ['pending', workflowId, '--profile', 'mtls-without-cert', '--config-file', configFile],
        { env },
      );
      assert.equal(refused.code, EXIT_CODES.tlsFailed, refused.stderr);
      assert.match(refused.stderr, /client certificate/, 'the hint names what the server wants');
    } finally {
      await stopWorker(worker);
    }
  },
);
