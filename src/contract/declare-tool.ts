// declareTool: the checks that turn what a tool author declares into a frozen declaration, and the revisions that make
// a changed schema or policy a changed contract. Sandbox-safe: workflow code imports declarations to call tools by
// them, typed. The types live in tool-spec.ts.
import { z } from 'zod';
import type { ToolRevisions } from './audit-record.js';
import { businessKeyFieldProblems } from './business-key.js';
import { isCatalogCode } from './error-catalog.js';
import { formatPointer, parsePointer } from './json-pointer.js';
import { policyRevision } from './policy-revision.js';
import { receiptVisibilityProblems } from './receipt-visibility.js';
import { redactedOutputFields } from './redacted-output-fields.js';
import { untrustedTextFieldsProblems } from './untrusted-data-text.js';
import { validForProblems } from './validity-window.js';
import { authoritativeSourcesProblems } from './authoritative-sources.js';
import { allowedUrlDomainsProblems } from './redaction/url-allowlist.js';
import { BUILTIN_SENSITIVE_FIELDS, normalizeFieldName } from './redaction.js';
import { schemaFingerprint } from './schema-fingerprint.js';
import { digestJson } from './sha256.js';
import type { ToolFacts } from './tool-facts.js';
import { guidanceProblems } from './tool-guidance.js';
import {
  DEFAULT_BUDGET,
  DEFAULT_MAX_ARGUMENT_BYTES,
  MIN_BUDGET_BYTES,
  NEEDS_INPUT_RECOVERIES,
  TOOL_NAME_PATTERN,
  type ToolBudget,
  type ToolCallDefaults,
  type ToolDeclaration,
  type ToolDeclarationSpec,
} from './tool-spec.js';

const BUSINESS_CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;

/** Thrown by `declareTool` and `implementTool` for a tool that cannot work; a programming error, not a tool result. */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
}

/**
 * Validates and freezes what a tool is. Schema revisions default to a digest of each schema's definition and the
 * policy revision to a digest of every policy setting, so a changed schema or policy is a changed contract even when
 * nobody bumps a number; the declaration's `facts.revision` covers them all.
 */
export function declareTool<In extends z.ZodType, Out extends z.ZodType>(
  spec: ToolDeclarationSpec<In, Out>,
): ToolDeclaration<In, Out> {
  const fail = (why: string): never => {
    throw new ToolDefinitionError(`tool '${String(spec.name)}': ${why}`);
  };
  if (!TOOL_NAME_PATTERN.test(spec.name)) fail(`name must match ${TOOL_NAME_PATTERN}`);
  const aliases = spec.aliases ?? [];
  for (const alias of aliases) {
    if (typeof alias !== 'string' || !TOOL_NAME_PATTERN.test(alias))
      fail(`alias '${String(alias)}' must match ${TOOL_NAME_PATTERN}`);
  }
  if (new Set([spec.name, ...aliases]).size !== aliases.length + 1)
    fail('aliases must differ from the name and from each other');
  if (spec.idempotencyScope !== undefined) {
    if (typeof spec.idempotencyScope !== 'string' || !TOOL_NAME_PATTERN.test(spec.idempotencyScope))
      fail(`idempotencyScope must match ${TOOL_NAME_PATTERN}`);
    if (spec.businessKey === undefined) fail('idempotencyScope scopes a business key: give businessKey too');
  }
  // A rename would otherwise move the business keys to the new name: the same write, made before and after it, would
  // be two keys and run twice.
  if (aliases.length > 0 && spec.businessKey !== undefined && spec.idempotencyScope === undefined) {
    fail('a renamed tool that derives a business key needs idempotencyScope: the name its keys were made under');
  }
  if (!(spec.input instanceof z.ZodType) || !(spec.output instanceof z.ZodType))
    fail('input and output must be zod schemas');
  if (!['read', 'write', 'destructive'].includes(spec.effect)) fail(`unknown effect '${String(spec.effect)}'`);
  for (const problem of guidanceProblems(spec.name, spec.input, spec)) fail(problem);
  const budget: ToolBudget = { ...DEFAULT_BUDGET, ...spec.budget };
  if (!Number.isSafeInteger(budget.maxBytes) || budget.maxBytes < MIN_BUDGET_BYTES)
    fail(`budget.maxBytes must be an integer ≥ ${MIN_BUDGET_BYTES}`);
  for (const key of ['maxItems', 'maxTextChars', 'maxDepth'] as const) {
    if (!Number.isSafeInteger(budget[key]) || budget[key] < 1) fail(`budget.${key} must be a positive integer`);
  }
  for (const [code, declared] of Object.entries(spec.businessErrors ?? {})) {
    if (!BUSINESS_CODE_PATTERN.test(code) || isCatalogCode(code))
      fail(`business code '${code}' must be UPPER_SNAKE and not a catalog code`);
    if (declared.status !== undefined && declared.status !== 'failed' && declared.status !== 'needs_input')
      fail(`business code '${code}' has an unknown status`);
    if (
      declared.status === 'needs_input' &&
      declared.recovery !== undefined &&
      !NEEDS_INPUT_RECOVERIES.includes(declared.recovery)
    ) {
      fail(`business code '${code}' needs input, so its recovery must be one of ${NEEDS_INPUT_RECOVERIES.join(', ')}`);
    }
  }
  const invariantIds = new Set<string>();
  for (const invariant of spec.invariants ?? []) {
    if (invariantIds.has(invariant.id)) fail(`duplicate invariant '${invariant.id}'`);
    invariantIds.add(invariant.id);
  }
  if (spec.freshness && !(spec.freshness.maxAgeMs > 0)) fail('freshness.maxAgeMs must be positive');
  if (spec.businessKey !== undefined) for (const problem of businessKeyFieldProblems(spec.businessKey)) fail(problem);
  for (const problem of [...scopeProblems(spec), ...continuationProblems(spec)]) fail(problem);
  if (spec.callLimit !== undefined && !(Number.isSafeInteger(spec.callLimit) && spec.callLimit > 0))
    fail('callLimit must be a positive integer');
  const exactNames = new Set([...BUILTIN_SENSITIVE_FIELDS, ...(spec.sensitiveFields ?? [])].map(normalizeFieldName));
  for (const name of spec.publicFields ?? []) {
    if (typeof name !== 'string' || normalizeFieldName(name) === '') fail('publicFields must be field names');
    if (exactNames.has(normalizeFieldName(name)))
      fail(
        `publicFields cannot list '${name}': it names a credential or control field (built in, or in sensitiveFields)`,
      );
  }
  for (const pointer of spec.visibleToApprovers ?? []) {
    if (typeof pointer !== 'string' || pointer === '' || parsePointer(pointer) === null)
      fail(
        `visibleToApprovers: '${String(pointer)}' is not a JSON Pointer into the arguments (e.g. /credentials/act_as)`,
      );
  }
  for (const problem of callDefaultsProblems(spec.callDefaults)) fail(problem);
  // Issue 27's declarative fields: each rule's checks live in its own module.
  for (const problem of [
    ...receiptVisibilityProblems(spec),
    ...untrustedTextFieldsProblems(spec),
    ...validForProblems(spec),
    ...authoritativeSourcesProblems(spec),
    ...allowedUrlDomainsProblems(spec),
  ]) {
    fail(problem);
  }
  const unshowable = redactedOutputFields(spec.output, spec);
  if (unshowable.length > 0) {
    fail(
      `output declares ${unshowable.slice(0, 5).join(', ')}, which redaction removes from every result: leave ${unshowable.length === 1 ? 'it' : 'them'} out of the output schema, or list a name that only sounds secret in publicFields`,
    );
  }
  const maxArgumentBytes = spec.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
  if (!isPositiveInteger(maxArgumentBytes)) fail('maxArgumentBytes must be a positive integer');
  // A destructive tool asks a person first unless its author opted out in so many words.
  const requiresApproval = spec.requiresApproval ?? spec.effect === 'destructive';
  // Derived from the output schema, which revisions.output already covers: the policy revision stays as declared.
  const listPointer = budget.itemsPointer ?? soleListPointer(spec.output);
  const revisions: ToolRevisions = {
    input: spec.revisions?.input ?? schemaRevision(spec.input),
    output: spec.revisions?.output ?? schemaRevision(spec.output),
    effect: spec.revisions?.effect ?? `${spec.effect}${requiresApproval ? '+approval' : ''}`,
    handler: spec.revisions?.handler ?? '1',
    producer: spec.revisions?.producer ?? '1',
    policy: spec.revisions?.policy ?? policyRevision({ ...spec, budget }),
  };
  const facts: Omit<ToolFacts, 'revision'> = {
    name: spec.name,
    effect: spec.effect,
    requiresApproval,
    businessKey: spec.businessKey === undefined ? null : Object.freeze([...spec.businessKey]),
    keyScope: spec.idempotencyScope ?? spec.name,
    callLimit: spec.callLimit ?? null,
    callDefaults: spec.callDefaults === undefined ? null : Object.freeze({ ...spec.callDefaults }),
  };
  // Everything else a call's rules depend on is in the revisions (schemas, effect, policy) or here.
  const declared = {
    facts,
    revisions,
    aliases,
    maxArgumentBytes,
    visibleToApprovers: spec.visibleToApprovers ?? [],
    invariants: (spec.invariants ?? []).map(({ id, version }) => ({ id, version })),
    continuation: spec.continuation ?? null,
    recordRawOutput: spec.recordRawOutput === true,
  };
  return Object.freeze({
    ...spec,
    facts: Object.freeze({ ...facts, revision: `sha256:${digestJson(declared).slice(0, 32)}` }),
    requiresApproval,
    maxArgumentBytes,
    aliases: Object.freeze([...aliases]),
    revisions: Object.freeze(revisions),
    budget: Object.freeze(listPointer === undefined ? budget : { ...budget, itemsPointer: listPointer }),
    sensitiveFields: Object.freeze([...(spec.sensitiveFields ?? [])]),
    publicFields: Object.freeze([...(spec.publicFields ?? [])]),
    visibleToApprovers: Object.freeze([...(spec.visibleToApprovers ?? [])]),
    invariants: Object.freeze([...(spec.invariants ?? [])]),
    examples: Object.freeze([...(spec.examples ?? [])]),
    normalizations: Object.freeze([...(spec.normalizations ?? [])]),
    ...(spec.untrustedTextFields === undefined
      ? {}
      : { untrustedTextFields: Object.freeze([...spec.untrustedTextFields]) }),
  });
}

/**
 * The main list of a tool whose output is an object with a single property, an array (`{ items: [...] }`): that
 * array is what the result lists, so items are counted, cut and continued there without an explicit
 * `budget.itemsPointer`. An object with other properties is a record (an order with `lines` is one order) and keeps
 * `data` as its one item.
 */
function soleListPointer(output: z.ZodType): string | undefined {
  if (!(output instanceof z.ZodObject)) return undefined;
  const keys = Object.keys(output.shape);
  if (keys.length !== 1) return undefined;
  let property: unknown = output.shape[keys[0]!];
  while (property instanceof z.ZodOptional || property instanceof z.ZodNullable) property = property.unwrap();
  return property instanceof z.ZodArray ? formatPointer([keys[0]!]) : undefined;
}

function callDefaultsProblems(defaults: ToolCallDefaults | undefined): string[] {
  if (defaults === undefined) return [];
  const keys = ['timeoutMs', 'readAttempts', 'heartbeatTimeoutMs'] as const;
  return keys
    .filter((key) => defaults[key] !== undefined && !isPositiveInteger(defaults[key]))
    .map((key) => `callDefaults.${key} must be a positive integer`);
}

function isPositiveInteger(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

function scopeProblems(spec: ToolDeclarationSpec<z.ZodType, z.ZodType>): string[] {
  const { scope } = spec;
  if (scope === undefined) return [];
  if (spec.effect !== 'read') return ['scope applies to reads only (a write is authorized before it runs)'];
  const pointers = [scope.tenantPointer, scope.subjectPointer].filter((pointer) => pointer !== undefined);
  if (pointers.length === 0) return ['scope needs a tenantPointer or a subjectPointer'];
  return pointers
    .filter((pointer) => typeof pointer !== 'string' || parsePointer(pointer) === null)
    .map((pointer) => `scope pointer '${String(pointer)}' is not a JSON Pointer`);
}

function continuationProblems(spec: ToolDeclarationSpec<z.ZodType, z.ZodType>): string[] {
  const { continuation } = spec;
  if (continuation === undefined) return [];
  if (spec.effect !== 'read') return ['continuation applies to reads only'];
  if (continuation.kind !== 'offset' && continuation.kind !== 'cursor')
    return [`unknown continuation kind '${String((continuation as { kind: unknown }).kind)}'`];
  // The executor rewrites this one argument, so the input must be an object schema that declares it.
  if (!(spec.input instanceof z.ZodObject) || !Object.hasOwn(spec.input.shape, continuation.argument)) {
    return [`continuation argument '${String(continuation.argument)}' must be a key of the input object schema`];
  }
  if (
    continuation.kind === 'cursor' &&
    continuation.ttlMs !== undefined &&
    !(Number.isSafeInteger(continuation.ttlMs) && continuation.ttlMs > 0)
  ) {
    return ['continuation.ttlMs must be a positive integer'];
  }
  return [];
}

function schemaRevision(schema: z.ZodType): string {
  return `sha256:${digestJson(schemaFingerprint(schema)).slice(0, 16)}`;
}
