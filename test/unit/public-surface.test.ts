import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readFileSync } from 'node:fs';
import * as root from '../../src/index.js';

// The root export is public API: adding or removing a name is a deliberate change, made here too.
it('the root export surface is exactly the documented one, at most 60 names', () => {
  const names = Object.keys(root).sort();
  assert.deepEqual(names, [
    'DEFAULT_BUDGET',
    'ERROR_CATALOG',
    'MODEL_RESULT_SCHEMA_VERSION',
    'ToolDefinitionError',
    'ToolError',
    'ToolRegistry',
    'declareTool',
    'implementTool',
    'isToolError',
    'modelResultSchema',
    'publicUrl',
    'readFetchJson',
    'readHttpJson',
    'safePath',
    'shellFreeString',
    'sqlIdentifier',
  ]);
  // Types are erased at run time: the declaration file says how many names a user sees.
  const declared = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
  const exported = [...declared.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((block) =>
    (block[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
  assert.ok(exported.length <= 60, `${exported.length} names at the root`);
});

it('the dev stack, and the funnel for unit tests of a tool, are exported from ./testing only', async () => {
  const [testing, temporal, store] = await Promise.all([
    import('../../src/testing/index.js'),
    import('../../src/temporal/index.js'),
    import('../../src/store/index.js'),
  ]);
  const devStack = Object.keys(testing).sort();
  assert.deepEqual(devStack, [
    'EMBEDDED_APP_ROLE',
    'EMBEDDED_DATA_ROOT',
    'EmbeddedPostgresServer',
    'TEMPORAL_CLI_WHEEL',
    'TemporalCliProvisionError',
    'executeTool',
    'findOrProvisionTemporalCli',
    'freePort',
    'provisionTemporalCli',
    'resolveDatabase',
    'resolveTemporalCli',
    'startDevServer',
  ]);
  for (const entry of [root, temporal, store])
    assert.deepEqual(
      Object.keys(entry).filter((name) => devStack.includes(name)),
      [],
    );
});
