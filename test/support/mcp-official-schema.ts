// Validators for the official MCP JSON Schemas, vendored in test/conformance/vectors/mcp-schema/<revision>/.
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readVector } from './conformance-vectors.js';

export const MCP_REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];

const cache = new Map<string, ValidateFunction>();

/** A validator for one definition (`Tool`, `CallToolResult`, …) of one protocol revision. */
export function officialValidator(revision: McpRevision, definition: string): ValidateFunction {
  const key = `${revision}#${definition}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const schema = JSON.parse(readVector(`mcp-schema/${revision}/schema.json`).toString('utf8')) as {
    $defs?: object;
    definitions?: object;
  };
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
