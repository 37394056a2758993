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
    'ERROR_CATALOG',
    'ERROR_CATEGORIES',
    'MODEL_RESULT_SCHEMA_VERSION',
    'RECOVERIES',
    'TOOL_STATUSES',
    'ToolDefinitionError',
    'ToolError',
    'ToolRegistry',
    'VALIDATION_LAYERS',
    'auditRecordSchema',
    'callBindingDigest',
    'canonicalJson',
    'computeBindings',
    'defineTool',
    'digestJson',
    'executeTool',
    'isCatalogCode',
    'isToolError',
    'modelResultSchema',
    'nonRetryableCodes',
    'principalRef',
    'readHttpJson',
    'requestDigest',
    'resultDigest',
    'sha256Hex',
    'verifyAudit',
  ]);
});
