import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/testing/free-port.js';
import { EmbeddedPostgresServer } from '../../src/testing/embedded-postgres-server.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { startCommandLine, waitForText, type CliProcess } from '../support/cli-process.js';

// The package as a user installs it: `npm pack` (which builds lib/ first), `npm install <tarball>` in a fresh project,
// then every subpath export imports and the `tool-contract` bin runs under `npx` — including the command line the
// CLI itself prints (`dev` says which worker command to run next; that line must work where it was printed).
let scratch: string;
let app: string;
const temporalCli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });

/** A line the shell runs with this process's environment minus what would point the CLI at the repository's stack. */
const userEnv = { DATABASE_URL: undefined, DATABASE_OWNER_URL: undefined, TEMPORAL_ADDRESS: undefined, TEMPORAL_NAMESPACE: undefined, TEMPORAL_CLI_PATH: temporalCli?.path };

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'ttc-installed-'));
  execFileSync('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [tarball] = readdirSync(scratch).filter((name) => name.endsWith('.tgz'));
  assert.ok(tarball !== undefined, 'npm pack wrote a tarball');
  app = join(scratch, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'installed-app', private: true, type: 'module' }));
  // Dependencies come from the npm cache the repository's own install filled (no network needed for them). The
  // optional peer a subpath needs (`./otel`: @opentelemetry/api) is installed as its user would, at the tested version.
  const otelApi = `@opentelemetry/api@${devDependency('@opentelemetry/api')}`;
  execFileSync('npm', ['install', join(scratch, tarball), otelApi, '--no-audit', '--no-fund', '--prefer-offline', '--silent'], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
}, { timeout: 600_000 });

function devDependency(name: string): string {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const version = manifest.devDependencies[name];
  assert.ok(version !== undefined, `${name} is a devDependency`);
  return version;
}

after(() => {
  if (scratch === undefined) return;
  // As root the embedded cluster of a project in a private folder lives elsewhere (see EmbeddedPostgresServer).
  rmSync(new EmbeddedPostgresServer({ dataDir: join(app, '.data', 'postgres', 'main') }).clusterDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

test('every subpath export of the installed package imports', { timeout: 120_000 }, () => {
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'temporal-tool-contract', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json');
  assert.ok(subpaths.length >= 10, `exports: ${subpaths.join(', ')}`);
  const specifiers = subpaths.map((subpath) => `temporal-tool-contract${subpath.slice(1)}`);
  const script = `for (const s of ${JSON.stringify(specifiers)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, stdio: ['ignore', 'ignore', 'pipe'] });
});

test('npx tool-contract runs, and the worker line `dev` prints runs as printed', { timeout: 480_000 }, async () => {
  assert.ok(temporalCli !== null, 'the Temporal CLI is installed (scripts/install-temporal-cli.sh)');
  const help = execFileSync('npx', ['tool-contract', 'help'], { cwd: app, encoding: 'utf8' });
  assert.match(help, /^Usage: tool-contract <command>/);

  const [port, uiPort] = [await freePort(), await freePort()];
  const dev = startCommandLine(`exec npx tool-contract dev --port ${port} --ui-port ${uiPort}`, { cwd: app, env: userEnv });
  let worker: CliProcess | undefined;
  try {
    await waitForText(dev, 'Ctrl-C stops everything.', 300_000);
    const exports = [...dev.stdout().matchAll(/^\s*(export \w+=\S+)$/gm)].map(([, line]) => line);
    const workerLine = /^\s*(npx tool-contract worker\b.*)$/m.exec(dev.stdout())?.[1];
    assert.ok(workerLine !== undefined, `dev prints the worker command in the form that works here:\n${dev.stdout()}`);
    assert.equal(exports.length, 2, dev.stdout());
    worker = startCommandLine([...exports, workerLine].join('\n'), { cwd: app, env: userEnv });
    await waitForText(worker, 'Ctrl-C (or SIGTERM) stops it.', 120_000);
    assert.match(worker.stdout(), /worker running on task queue/);
  } finally {
    for (const cli of [worker, dev]) {
      if (cli?.child.pid === undefined || cli.child.exitCode !== null) continue;
      process.kill(-cli.child.pid, 'SIGINT');
      await cli.exited(60_000).catch(() => process.kill(-cli.child.pid!, 'SIGKILL'));
    }
  }
});

