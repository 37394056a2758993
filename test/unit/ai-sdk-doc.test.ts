// docs/ai-sdk.md must stay true: its TypeScript samples compile against the package's public entry points and the AI
// SDK packages, as the README's do.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { sampleCompileErrors, typeScriptSamples } from '../support/doc-samples.js';

describe('docs/ai-sdk.md', () => {
  it('has TypeScript samples that compile against the public entry points', { timeout: 120_000 }, () => {
    const found = typeScriptSamples(readFileSync(join(PROJECT_ROOT, 'docs', 'ai-sdk.md'), 'utf8'));
    assert.ok(found.length >= 4, `expected the AI SDK samples, found ${found.length}`);
    assert.deepEqual(sampleCompileErrors(found, 'ai-sdk-samples'), []);
  });
});
