// The README must stay true: its generated sections match the code (its TypeScript samples compile: doc-samples.test.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ARCHITECTURE_PATH, README_PATH, renderArchitecture, renderReadme } from '../../scripts/readme-sections.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const readme = readFileSync(README_PATH, 'utf8');

describe('README', () => {
  it('has generated sections (the error catalog table) that match the code; `npm run readme` refreshes them', () => {
    assert.equal(readme, renderReadme(readme));
  });

  it('docs/architecture.md lists exactly the names each entry point exports; `npm run readme` refreshes it', () => {
    const architecture = readFileSync(ARCHITECTURE_PATH, 'utf8');
    assert.equal(architecture, renderArchitecture(architecture));
  });

  it('gives the two quickstart commands that CI runs: install and demo, then the tests', () => {
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    assert.match(readme, /```sh\nnpm install && npm start\nnpm test\n```/);
    assert.match(ci, /^npm test$/m, '.ci/run must run the README test command');
  });
});
