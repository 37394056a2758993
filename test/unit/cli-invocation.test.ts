import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliInvocation } from '../../src/cli/invocation.js';

// The prefix of the command lines the CLI prints is the way it was started, so a printed line runs where it was
// printed (the lines themselves are run as printed in test/integration/cli-worker.test.ts).
test('a printed command line starts the way this CLI was started', () => {
  assert.equal(
    cliInvocation('/home/me/temporal-tool-contract/src/cli/main.ts'),
    'npm run cli --',
    'a clone: the source through tsx',
  );
  assert.equal(
    cliInvocation('/srv/app/node_modules/.bin/tool-contract'),
    'npx tool-contract',
    'a dependency: its bin is not on PATH',
  );
  assert.equal(cliInvocation('/usr/local/bin/tool-contract'), 'tool-contract', 'a global install: on PATH');
  assert.equal(cliInvocation('/srv/app/lib/src/cli/main.js'), 'node /srv/app/lib/src/cli/main.js');
});
