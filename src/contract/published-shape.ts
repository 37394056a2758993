import { CANONICAL_JSON_MAX_DEPTH } from './canonical-json.js';
import { guardedParse, type ParseIssue } from './guarded-parse.js';
import { inspectJson } from './json-shape.js';
import { modelResultSchema, type ModelResult } from './model-result.js';

/**
 * What `data` is replaced with while the schema checks the rest of a result: JSON, and non-null like the data it
 * stands for. Besides `z.json()`, the schema reads of `data` only whether it is null (the status rules).
 */
const DATA_STAND_IN = 0;

/**
 * The issues {@link modelResultSchema} finds in a model result this package built (none for a valid one), with its
 * `data` checked by the shape gate instead of zod's `z.json()`, which walks every value through a lazy union (most of
 * the check's cost). The gate accepts no more than `z.json()` does: it refuses what `z.json()` refuses (non-finite
 * numbers, `undefined` items, functions, symbols, class instances) and `undefined` member values are refused
 * here; it also refuses what canonical JSON cannot write (cycles, which `z.json()` lets through, lone surrogates,
 * nesting past its limit), which the result's digest would refuse next, and keys that reach a prototype, which the
 * data gate refused on the way in. Either way the call ends as the same internal failure.
 */
export function publishedShapeIssues(modelResult: ModelResult): readonly ParseIssue[] {
  const { data } = modelResult;
  if (data === null) return issuesOf(modelResult);
  const issues = issuesOf({ ...modelResult, data: DATA_STAND_IN });
  const shape = inspectJson(data, CANONICAL_JSON_MAX_DEPTH);
  if (!shape.ok) return [...issues, { path: `/data${shape.path}`, code: shape.reason }];
  if (shape.members.undefinedValues > 0) return [...issues, { path: '/data', code: 'undefined_member' }];
  return issues;
}

function issuesOf(modelResult: ModelResult): readonly ParseIssue[] {
  const parsed = guardedParse(modelResultSchema, modelResult);
  return parsed.success ? [] : parsed.issues;
}
