// The README must stay true: its generated sections match the code, and its TypeScript samples compile against the
// package's public entry points (resolved through package.json "exports", so a sample cannot import something a
// user could not).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { README_PATH, renderReadme } from '../../scripts/readme-sections.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const readme = readFileSync(README_PATH, 'utf8');

/** The ```ts blocks of the README; a block whose first line is `// name.ts` is written under that name. */
function samples(text: string): { fileName: string; code: string }[] {
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => {
    const code = match[1] ?? '';
    const named = /^\/\/ ([\w-]+\.ts)\b/.exec(code);
    return { fileName: named?.[1] ?? `sample-${index + 1}.ts`, code };
  });
}

/** `paths` that send each public specifier to its source, mirroring package.json "exports" (lib/x.d.ts → x.ts). */
function publicEntryPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { types?: string }> };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (target.types === undefined) continue;
    const source = target.types.replace(/^\.\/lib\//, './').replace(/\.d\.ts$/, '.ts');
    paths[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = [source];
  }
  return paths;
}

function compileErrors(files: string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(PROJECT_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  assert.ok(config, 'tsconfig.json must parse');
  const program = ts.createProgram(files, { ...config.options, noEmit: true, baseUrl: PROJECT_ROOT, paths: publicEntryPaths() });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('README', () => {
  it('has generated sections (the error catalog table) that match the code; `npm run readme` refreshes them', () => {
    assert.equal(readme, renderReadme(readme));
  });

  it('has TypeScript samples that compile against the public entry points', { timeout: 120_000 }, () => {
    const found = samples(readme);
    assert.ok(found.length >= 3, `expected the README's samples, found ${found.length}`);
    // Under node_modules so the samples resolve the project's dependencies; an ESM scope like a user's project.
    const dir = join(PROJECT_ROOT, 'node_modules', '.cache', 'readme-samples');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const files = found.map(({ fileName, code }) => {
      const path = join(dir, fileName);
      writeFileSync(path, code);
      return path;
    });
    assert.deepEqual(compileErrors(files), []);
  });

  it('gives the two quickstart commands that CI runs: install and demo, then the tests', () => {
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    assert.match(readme, /```sh\nnpm install && npm start\nnpm test\n```/);
    assert.match(ci, /^npm test$/m, '.ci/run must run the README test command');
  });
});
