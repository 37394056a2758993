// How the suite runs its TypeScript (testkit/typescript-hooks.mjs): `./x.js` finds `./x.ts`, a stack trace names the
// source's own line, a source the run stripped once is handed over by its SHA-256 (and only by it: a changed source
// is stripped afresh), and scripts/test-run/stripped-sources.mjs writes exactly Node's stripped form. Each case runs a
// real Node process with the hooks preloaded, on files in a folder of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { RUN_TYPESCRIPT } from '../../testkit/run-typescript.js';

const folder = mkdtempSync(join(tmpdir(), 'ttc-typescript-hooks-'));
after(() => rmSync(folder, { recursive: true, force: true }));
writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(folder, 'greeting.ts'), 'export const greeting = (name: string): string => `hello ${name}`;\n');
const MAIN = [
  "import { greeting } from './greeting.js';",
  'const names: readonly string[] = process.argv.slice(2);',
  'console.log(greeting(names[0] ?? "nobody"));',
  "const reason: string = 'failed on line 4'; if (names.includes('fail')) throw new Error(reason);",
  '',
].join('\n');
writeFileSync(join(folder, 'main.ts'), MAIN);

function runMain(args: readonly string[], strippedSources?: string): { code: number | null; out: string; err: string } {
  const env = { ...process.env };
  delete env['TTC_STRIPPED_SOURCES'];
  if (strippedSources !== undefined) env['TTC_STRIPPED_SOURCES'] = strippedSources;
  const run = spawnSync(process.execPath, [...RUN_TYPESCRIPT, join(folder, 'main.ts'), ...args], {
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the TypeScript hooks of the test suite', () => {
  it("find './greeting.js' as greeting.ts and run it with its types stripped", () => {
    const { code, out, err } = runMain(['ada']);
    assert.equal(code, 0, err);
    assert.equal(out, 'hello ada\n');
  });

  it("name the source's own line and column in a stack trace (types stripped as spaces)", () => {
    const { code, err } = runMain(['fail']);
    assert.equal(code, 1);
    assert.match(err, /failed on line 4/);
    const line = MAIN.split('\n')[3] ?? '';
    assert.match(err, new RegExp(`main\\.ts:4:${line.indexOf('new Error') + 1}\\b`));
  });

  it("hand over the run's stripped form of a source, found by the source's SHA-256", () => {
    const stripped = join(folder, 'stripped-by-digest');
    mkdirSync(stripped);
    // A stripped form that says where it came from: only the hook can have put it in place of main.ts.
    writeFileSync(join(stripped, `${sha256(MAIN)}.js`), "console.log('from the run\\'s stripped sources');\n");
    const { code, out, err } = runMain(['ada'], stripped);
    assert.equal(code, 0, err);
    assert.equal(out, "from the run's stripped sources\n");
  });

  it('strip a source afresh when the folder has no form of its current text (changed since, or written by a test)', () => {
    const stale = join(folder, 'stripped-before-a-change');
    mkdirSync(stale);
    writeFileSync(join(stale, `${sha256(`${MAIN}// an older text\n`)}.js`), "console.log('stale');\n");
    const { code, out, err } = runMain(['ada'], stale);
    assert.equal(code, 0, err);
    assert.equal(out, 'hello ada\n');
  });
});

describe('scripts/test-run/stripped-sources.mjs', () => {
  it("writes each project source's stripped form under the SHA-256 of the source", () => {
    const out = join(folder, 'project-stripped');
    const run = spawnSync(
      process.execPath,
      ['--no-warnings', join(PROJECT_ROOT, 'scripts', 'test-run', 'stripped-sources.mjs'), out],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const sources = ['src/cli/main.ts', 'workflows/index.ts', 'test/unit/typescript-hooks.test.ts'];
    // Node's own stripped form, from a process of its own (the function warns that it is experimental, once each).
    const expected = spawnSync(
      process.execPath,
      [
        '--no-warnings',
        '--input-type=module',
        '-e',
        "import { stripTypeScriptTypes } from 'node:module'; import { readFileSync } from 'node:fs';" +
          'console.log(JSON.stringify(process.argv.slice(1).map((f) => stripTypeScriptTypes(readFileSync(f, "utf8")))));',
        ...sources,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(expected.status, 0, expected.stderr);
    const strippedByNode = JSON.parse(expected.stdout) as string[];
    sources.forEach((source, index) => {
      const text = readFileSync(join(PROJECT_ROOT, source), 'utf8');
      assert.equal(readFileSync(join(out, `${sha256(text)}.js`), 'utf8'), strippedByNode[index], source);
    });
  });
});
