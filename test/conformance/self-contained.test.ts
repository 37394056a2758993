// Tests are self-contained: a clone anywhere passes, with nothing next to it. The vectors the tests read are vendored
// (test/conformance/vectors/); this file proves it by running every test that reads them from a copy of the
// repository's tracked files in an empty temporary folder, and checks that no source reaches outside the repository.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const THIS_FILE = basename(fileURLToPath(import.meta.url));

/** The files a fresh clone has: everything git tracks, as it is in the working tree. */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => path !== '' && existsSync(join(PROJECT_ROOT, path)));
}

/**
 * The tests that read vendored vectors: the rest of the conformance tier, and the adapter tests that validate against
 * the official MCP schemas. (Not this file: in the copy it would copy itself again.)
 */
function vectorReadingTests(): string[] {
  const conformance = readdirSync(join(PROJECT_ROOT, 'test', 'conformance')).filter(
    (name) => name.endsWith('.test.ts') && name !== THIS_FILE,
  );
  return [...conformance.map((name) => `test/conformance/${name}`), 'test/unit/adapters'];
}

describe('self-contained tests', () => {
  it(
    'a copy of the tracked files in an empty folder passes every test that reads vendored vectors',
    { timeout: 300_000 },
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), 'ttc-clone-'));
      try {
        const clone = join(scratch, 'temporal-tool-contract');
        for (const path of trackedFiles()) {
          mkdirSync(dirname(join(clone, path)), { recursive: true });
          copyFileSync(join(PROJECT_ROOT, path), join(clone, path));
        }
        // Installed packages are not part of a clone; linking them stands in for `npm install`.
        symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
        assert.deepEqual(readdirSync(scratch), ['temporal-tool-contract'], 'the copy has nothing next to it');

        // Without NODE_TEST_CONTEXT the inner runner reports as a top-level run would (else it streams to this one).
        const env = { ...process.env };
        delete env['NODE_TEST_CONTEXT'];
        const run = promisify(execFile)('bash', ['scripts/run-tests.sh', ...vectorReadingTests()], {
          cwd: clone,
          env,
          timeout: 240_000,
          maxBuffer: 64 * 1024 * 1024,
        });
        const { stdout } = await run.catch((error: unknown) => {
          const failed = error as { stdout?: string; stderr?: string };
          assert.fail(
            `the tests failed in the copy:\n${(failed.stdout ?? '').slice(-6000)}\n${(failed.stderr ?? '').slice(-2000)}`,
          );
        });
        const passed = Number(/^ℹ pass (\d+)$/m.exec(stdout)?.[1] ?? 0);
        assert.ok(passed > 20, `only ${passed} tests ran in the copy`);
        assert.match(stdout, /^ℹ fail 0$/m);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );

  it('no tracked source names a folder outside the repository (the shared folder the vectors once came from)', () => {
    const outside = /\.\.\/shared\b|['"]\.\.['"],\s*['"]shared['"]/;
    const offending = trackedFiles()
      .filter((path) => /\.(ts|js|sh|json)$/.test(path) && !path.startsWith('test/conformance/vectors/'))
      .filter((path) => outside.test(readFileSync(join(PROJECT_ROOT, path), 'utf8')));
    assert.deepEqual(offending, []);
  });
});
