import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as root from '../../src/index.js';

// The root export is public API: adding or removing a name is a deliberate change, made here too.
it('the root export surface is exactly the documented one', () => {
  assert.deepEqual(Object.keys(root).sort(), [
    'AUDIT_SCHEMA_VERSION',
    'CATALOG_CODES',
    'CanonicalJsonError',
    'DEFAULT_BUDGET',
    'DEFAULT_MAX_ARGUMENT_BYTES',
    'ERROR_CATALOG',
    'ERROR_CATEGORIES',
    'ERROR_LAYERS',
    'GoldenCaseError',
    'MODEL_RESULT_SCHEMA_VERSION',
    'RECOVERIES',
    'TOOL_STATUSES',
    'ToolDefinitionError',
    'ToolError',
    'ToolRegistry',
    'VALIDATION_LAYERS',
    'auditDigest',
    'auditRecordSchema',
    'businessIdempotencyKey',
    'callBindingDigest',
    'canonicalJson',
    'computeBindings',
    'defineTool',
    'digestJson',
    'executeTool',
    'goldenCaseFromRecording',
    'goldenCaseSchema',
    'isCatalogCode',
    'isToolError',
    'modelResultSchema',
    'nonRetryableCodes',
    'principalRef',
    'publicUrl',
    'readFetchJson',
    'readHttpJson',
    'requestDigest',
    'resultDigest',
    'runGoldenSet',
    'safePath',
    'sha256Hex',
    'shellFreeString',
    'sqlIdentifier',
    'verifyAudit',
    'verifyExecution',
  ]);
});

// The dev stack is its own entry point (`./testing`), as `@temporalio/testing` is Temporal's: the runtime entry
// points carry none of it, so a worker that imports them never loads the dev server or embedded Postgres.
it('the dev stack is exported from ./testing only', async () => {
  const [testing, temporal, store] = await Promise.all([import('../../src/testing/index.js'), import('../../src/temporal/index.js'), import('../../src/store/index.js')]);
  const devStack = Object.keys(testing).sort();
  assert.deepEqual(devStack, [
    'EMBEDDED_APP_ROLE',
    'EMBEDDED_DATA_ROOT',
    'EmbeddedPostgresServer',
    'TEMPORAL_CLI_WHEEL',
    'TemporalCliProvisionError',
    'findOrProvisionTemporalCli',
    'freePort',
    'provisionTemporalCli',
    'resolveDatabase',
    'resolveTemporalCli',
    'startDevServer',
  ]);
  for (const entry of [root, temporal, store]) assert.deepEqual(Object.keys(entry).filter((name) => devStack.includes(name)), []);
});
