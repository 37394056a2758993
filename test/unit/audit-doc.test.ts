// docs/audit.md must stay true: its TypeScript samples compile against the package's public entry points, as the
// README's do.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { sampleCompileErrors, typeScriptSamples } from '../support/doc-samples.js';

describe('docs/audit.md', () => {
  it('has TypeScript samples that compile against the public entry points', { timeout: 120_000 }, () => {
    const found = typeScriptSamples(readFileSync(join(PROJECT_ROOT, 'docs', 'audit.md'), 'utf8'));
    assert.equal(found.length, 2, 'the sealing job and the key pair');
    assert.deepEqual(sampleCompileErrors(found, 'audit-samples'), []);
  });
});
