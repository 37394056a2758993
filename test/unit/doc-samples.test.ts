// The README and the docs must stay true: their TypeScript samples compile against the package's public entry points
// (and docs/ai-sdk.md's against the AI SDK packages too). All documents compile in one program: a program of its own
// for each cost about ten seconds of CPU apiece.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { sampleCompileErrorsByDocument, typeScriptSamples, type DocSample } from '../support/doc-samples.js';

/** Each document with samples, and how many it must have (so a broken fence cannot hide them all). */
const DOCUMENTS: readonly { readonly path: string; readonly least: number; readonly exactly?: string }[] = [
  { path: 'README.md', least: 3 },
  { path: 'docs/ai-sdk.md', least: 4 },
  { path: 'docs/deployment.md', least: 4 },
  { path: 'docs/audit.md', least: 2, exactly: 'the sealing job and the key pair' },
];

const samples: Record<string, DocSample[]> = Object.fromEntries(
  DOCUMENTS.map(({ path }) => [path, typeScriptSamples(readFileSync(join(PROJECT_ROOT, path), 'utf8'))]),
);
let compiled: Record<string, string[]> | undefined;

for (const { path, least, exactly } of DOCUMENTS)
  describe(path, () => {
    it('has TypeScript samples that compile against the public entry points', { timeout: 120_000 }, () => {
      const found = samples[path] ?? [];
      if (exactly === undefined) assert.ok(found.length >= least, `expected ${path}'s samples, found ${found.length}`);
      else assert.equal(found.length, least, exactly);
      compiled ??= sampleCompileErrorsByDocument(samples, 'doc-samples');
      assert.deepEqual(compiled[path], []);
    });
  });
