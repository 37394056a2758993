// Tests come in tiers that can run alone: test/ holds exactly the tier folders (and support/, which holds no tests),
// each tier has its npm script, and `npm test` runs every tier.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const TIERS = ['conformance', 'integration', 'reliability', 'replay', 'ui', 'unit'] as const;
const TEST_DIR = join(PROJECT_ROOT, 'test');
const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFilesUnder(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('test tiers', () => {
  it('test/ holds the tier folders and support/, and nothing else', () => {
    const entries = readdirSync(TEST_DIR, { withFileTypes: true });
    assert.deepEqual(
      entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name),
      [],
    );
    assert.deepEqual(entries.map((entry) => entry.name).sort(), [...TIERS, 'support'].sort());
  });

  it('support/ holds no tests (every test belongs to a tier)', () => {
    assert.deepEqual(testFilesUnder(join(TEST_DIR, 'support')), []);
  });

  it('every tier has a test file and an npm script test:<tier> that runs exactly that folder', () => {
    for (const tier of TIERS) {
      assert.ok(testFilesUnder(join(TEST_DIR, tier)).length > 0, `test/${tier} has no tests`);
      assert.equal(scripts[`test:${tier}`], `scripts/run-tests.sh test/${tier}`);
    }
    const tierScripts = Object.keys(scripts).filter((name) => name.startsWith('test:'));
    assert.deepEqual(
      tierScripts.sort(),
      TIERS.map((tier) => `test:${tier}`).sort(),
      'a test:* script for each tier and no other',
    );
  });

  it('npm test type-checks, lints, checks the formatting, runs all of test/ (run-tests.sh without a folder) and the store tests through a pooler, at once', async () => {
    assert.equal(scripts['test'], 'node --import tsx scripts/test-run/run-all.ts');
    const { CHECKS } = await import('../../scripts/test-run/checks.js');
    assert.deepEqual(
      CHECKS.map((check) => check.command.join(' ')),
      [
        `npx tsc -p tsconfig.json --noEmit`,
        'npx eslint .',
        'npx prettier --check **/*.{ts,mjs,js}',
        'scripts/run-tests.sh',
        'node --import tsx scripts/run-pooler-tests.ts',
      ],
    );
    assert.equal(scripts['typecheck'], 'tsc -p tsconfig.json --noEmit');
    assert.equal(scripts['lint'], 'eslint .');
    assert.equal(scripts['format'], 'prettier --write "**/*.{ts,mjs,js}"');
    assert.equal(scripts['pooler'], 'node --import tsx scripts/run-pooler-tests.ts');
  });
});
