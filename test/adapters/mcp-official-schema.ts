// Validators for the official MCP JSON Schemas (../shared/conformance/mcp-schema/<revision>/schema.json, located from
// the repository root). A missing file fails the test that needs it: conformance is never skipped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

export const MCP_REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCHEMA_DIR = resolve(REPO_ROOT, '..', 'shared', 'conformance', 'mcp-schema');

function schemaPath(revision: McpRevision): string {
  return join(SCHEMA_DIR, revision, 'schema.json');
}

const cache = new Map<string, ValidateFunction>();

/** A validator for one definition (`Tool`, `CallToolResult`, …) of one protocol revision. */
export function officialValidator(revision: McpRevision, definition: string): ValidateFunction {
  const key = `${revision}#${definition}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const schema = JSON.parse(readFileSync(schemaPath(revision), 'utf8')) as { $defs?: object; definitions?: object };
  let validate: ValidateFunction;
  if (schema.$defs) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    validate = ajv.compile({ $ref: `#/$defs/${definition}`, $defs: schema.$defs });
  } else {
    const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
    validate = ajv.compile({ $ref: `#/definitions/${definition}`, definitions: schema.definitions });
  }
  cache.set(key, validate);
  return validate;
}

/** Asserts that `value` is a valid `definition` of `revision`, showing the first errors when not. */
export function assertOfficial(revision: McpRevision, definition: string, value: unknown): void {
  const validate = officialValidator(revision, definition);
  assert.equal(validate(value), true, `${definition} @ ${revision}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}
