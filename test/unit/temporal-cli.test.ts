import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';

const root = mkdtempSync(join(tmpdir(), 'ttc-cli-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

const explicit = executable(join(root, 'explicit', 'temporal'));
const onPath = executable(join(root, 'path-dir', 'temporal'));
const project = join(root, 'project');
const local = executable(join(project, '.tools', 'bin', 'temporal'));
const cacheDir = join(root, 'tmp');
const cached = executable(join(cacheDir, 'temporal-cli-sdk-typescript-1.24.0'));
const emptyProject = join(root, 'empty-project');
mkdirSync(emptyProject);

test('the Temporal CLI is resolved in the documented order: TEMPORAL_CLI_PATH, PATH, .tools, SDK cache', () => {
  const all = { TEMPORAL_CLI_PATH: explicit, PATH: join(root, 'path-dir'), TMPDIR: cacheDir };
  assert.deepEqual(resolveTemporalCli({ env: all, projectRoot: project }), {
    path: explicit,
    source: 'TEMPORAL_CLI_PATH',
  });
  assert.deepEqual(resolveTemporalCli({ env: { ...all, TEMPORAL_CLI_PATH: '' }, projectRoot: project }), {
    path: onPath,
    source: 'PATH',
  });
  assert.deepEqual(
    resolveTemporalCli({ env: { PATH: join(root, 'nowhere'), TMPDIR: cacheDir }, projectRoot: project }),
    { path: local, source: 'project-tools' },
  );
  assert.deepEqual(resolveTemporalCli({ env: { PATH: '', TMPDIR: cacheDir }, projectRoot: emptyProject }), {
    path: cached,
    source: 'sdk-cache',
  });
  assert.equal(
    resolveTemporalCli({ env: { PATH: '', TMPDIR: join(root, 'no-cache') }, projectRoot: emptyProject }),
    null,
  );
});

test('an explicit TEMPORAL_CLI_PATH that is not executable is an error, not a silent fallback', () => {
  const plain = join(root, 'plain-file');
  writeFileSync(plain, 'not a binary');
  chmodSync(plain, 0o644);
  assert.throws(
    () => resolveTemporalCli({ env: { TEMPORAL_CLI_PATH: plain, PATH: join(root, 'path-dir') }, projectRoot: project }),
    /not an executable/,
  );
});
