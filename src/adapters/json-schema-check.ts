import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalJson } from '../contract/canonical-json.js';
import { draft07To2020, isDraft07Schema } from './draft-07-schema.js';
import { linearRegExpEngine, PATTERN_LIMITS, UnsafePatternError, type PatternWork } from './linear-pattern.js';
import { mapSchema, type JsonSchemaObject } from './tool-definitions/schema-walk.js';

/** One reason a value does not match a schema: a path into the value and a safe description. */
export interface SchemaIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

/** A compiled check of values against a JSON Schema from outside (an MCP server's tool schemas). */
export type SchemaCheck = (value: unknown) => readonly SchemaIssue[];

/** Largest remote schema accepted (canonical JSON bytes): compiling is code generation, so it is bounded. */
const MAX_SCHEMA_CHARS = 256 * 1024;

/** The issue of a check whose patterns would have read more than {@link PATTERN_LIMITS}' `maxWorkPerCheck` allows. */
export const PATTERN_WORK_ISSUE: SchemaIssue = Object.freeze({ path: [], message: 'patternWork' });

/** Positions where a subschema describes a value of its own (not a branch or a definition applied in place). */
const VALUE_POSITIONS = new Set([
  '',
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
]);

/**
 * Formats checked on values from outside. The regular expressions are anchored and have no nested or adjacent
 * overlapping quantifiers, so they run in linear time; `email` is code, since its natural pattern backtracks
 * quadratically on `a@a.a.a…@`.
 */
const FORMATS: Record<string, RegExp | ((text: string) => boolean)> = {
  'date-time': (text) =>
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(text) && !Number.isNaN(Date.parse(text)),
  date: (text) => /^\d{4}-\d\d-\d\d$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)),
  time: /^\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  email: isEmail,
  uri: (text) => /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text),
  ipv4: /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/,
};

/** One `@`, no whitespace, a non-empty local part, and a dot inside the domain (not at either end). */
function isEmail(text: string): boolean {
  const at = text.indexOf('@');
  if (at < 1 || at !== text.lastIndexOf('@') || /\s/.test(text)) return false;
  return text.slice(at + 2, -1).includes('.');
}

/**
 * Compiles a remote JSON Schema (2020-12 by default, as MCP specifies; a draft-06/07 schema, which every server built
 * with the official SDK v1 declares, is first rewritten in 2020-12 terms with the same meaning). With `exact`, every
 * object at a value position is closed with `unevaluatedProperties: false` — keys the schema does not declare are
 * rejected, as the contract does for its own tools — without breaking `allOf`/`$ref` composition, whose branches are
 * left open. `pattern`s run on a linear-time engine (see `linearRegExpEngine`). Throws when the schema does not
 * compile, including an `UnsafePatternError` for a pattern that would need backtracking or exceeds
 * `PATTERN_LIMITS`. A value whose pattern matches would exceed the work one check may do fails the check with
 * {@link PATTERN_WORK_ISSUE}, whatever the schema says of it (a pattern under `not` cannot turn it into a pass).
 */
export function compileSchemaCheck(schema: JsonSchemaObject, options: { readonly exact: boolean }): SchemaCheck {
  if (canonicalJson(schema).length > MAX_SCHEMA_CHARS)
    throw new Error(`schema larger than ${MAX_SCHEMA_CHARS} characters`);
  const work = checkWork();
  const ajvOptions: Options = {
    strict: false,
    allErrors: false,
    logger: false,
    formats: FORMATS,
    validateFormats: true,
    code: { regExp: linearRegExpEngine(work) },
  };
  const current = isDraft07Schema(schema) ? draft07To2020(schema) : schema;
  // Compiling checks the schema against Ajv's meta-schema, whose own patterns run on this engine too.
  work.start();
  let validate: ValidateFunction;
  try {
    validate = new Ajv2020(ajvOptions).compile(options.exact ? closeObjects(current) : current);
  } catch (error) {
    throw work.exceeded() ? metaSchemaWorkError() : error;
  }
  if (work.exceeded()) throw metaSchemaWorkError();
  return (value) => {
    // Validation is synchronous, so one meter per compiled schema serves every check in turn.
    work.start();
    const valid = validate(value);
    if (work.exceeded()) return [PATTERN_WORK_ISSUE];
    return valid ? [] : (validate.errors ?? []).map(toIssue);
  };
}

function metaSchemaWorkError(): UnsafePatternError {
  return new UnsafePatternError('checking the schema against its meta-schema exceeds the pattern work bound');
}

/** The pattern work of one check at a time: {@link PATTERN_LIMITS}' `maxWorkPerCheck` units, and whether it ran out. */
function checkWork(): PatternWork & { start(): void; exceeded(): boolean } {
  let left = 0;
  let exceeded = false;
  return {
    start: () => {
      left = PATTERN_LIMITS.maxWorkPerCheck;
      exceeded = false;
    },
    spend: (units) => {
      if (exceeded || units > left) {
        exceeded = true;
        return false;
      }
      left -= units;
      return true;
    },
    exceeded: () => exceeded,
  };
}

function closeObjects(schema: JsonSchemaObject): JsonSchemaObject {
  return mapSchema(schema, (node, _path, via) =>
    VALUE_POSITIONS.has(via) && !('unevaluatedProperties' in node) ? { ...node, unevaluatedProperties: false } : node,
  );
}

function toIssue(error: ErrorObject): SchemaIssue {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((token) => (/^(0|[1-9]\d*)$/.test(token) ? Number(token) : token));
  const undeclared = error.params as { unevaluatedProperty?: unknown; additionalProperty?: unknown };
  const key = undeclared.unevaluatedProperty ?? undeclared.additionalProperty;
  return { path: typeof key === 'string' ? [...path, key] : path, message: error.keyword };
}
