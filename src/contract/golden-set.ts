import { canonicalJson } from './canonical-json.js';
import type { AnyToolImplementation } from './tool-spec.js';
import { executeTool } from './execute-tool.js';
import type { ExecutionContext } from './execution-context.js';
import { outcomeOfAudit, type CaseOutcome, type GoldenCase } from './golden-case.js';
import { resolvePointer } from './json-pointer.js';
import type { ModelResult } from './model-result.js';
import { ToolError } from './tool-error.js';

/** One case replayed: its outcome now, against its expectation and against the baseline. */
export interface GoldenCaseResult {
  readonly id: string;
  readonly outcome: CaseOutcome;
  /** `none` when the case states no expectation. */
  readonly expectation: 'met' | 'not_met' | 'none';
  /** How the outcome misses the expectation, one line per field or pointer. */
  readonly mismatches: readonly string[];
  /** The outcome under the baseline tool, else as recorded; `null` when there is neither. */
  readonly baseline: CaseOutcome | null;
  /** True when status, code or refusing layer differ from the baseline. */
  readonly changed: boolean;
  /** How the outcome differs from the baseline (status, code, refusing layer). */
  readonly changes: readonly string[];
  /** Layers whose rule version differs from the baseline's, as `layer: before → after`. */
  readonly ruleChanges: readonly string[];
}

/** What {@link runGoldenSet} found. */
export interface GoldenSetReport {
  readonly tool: string;
  readonly cases: readonly GoldenCaseResult[];
  /** Ids of the cases whose outcome changed against the baseline: what a rule change did. */
  readonly changed: readonly string[];
  /** Ids of the cases that miss their expectation. */
  readonly notMet: readonly string[];
}

/** Options of {@link runGoldenSet}. */
export interface GoldenSetOptions {
  /** The tool as it was (older rule versions). Without it, each case's `recorded` outcome is the baseline. */
  readonly baseline?: AnyToolImplementation;
}

/**
 * Replays a golden set against `tool` as defined now: each case's recorded handler output (or throw) runs through
 * the whole funnel with the case's arguments and clock, and the outcome is compared with the case's expectation and
 * with the baseline — the same case under `options.baseline`, or the outcome recorded with it. The report lists
 * exactly the cases a rule change changes (a new invariant version that catches a well-formed wrong fact, say) and
 * the cases that miss what they should do. Pure and deterministic: no clock, no I/O.
 */
export async function runGoldenSet(
  tool: AnyToolImplementation,
  cases: readonly GoldenCase[],
  options: GoldenSetOptions = {},
): Promise<GoldenSetReport> {
  const results: GoldenCaseResult[] = [];
  for (const goldenCase of cases) {
    if (goldenCase.tool !== tool.name)
      throw new RangeError(`golden case '${goldenCase.id}' is for tool '${goldenCase.tool}', not '${tool.name}'`);
    const now = await replay(tool, goldenCase);
    const baseline =
      options.baseline === undefined
        ? (goldenCase.recorded ?? null)
        : (await replay(options.baseline, goldenCase)).outcome;
    const mismatches = expectationMisses(goldenCase, now.outcome, now.modelResult);
    const changes = baseline === null ? [] : outcomeChanges(baseline, now.outcome);
    results.push({
      id: goldenCase.id,
      outcome: now.outcome,
      expectation: goldenCase.expect === undefined ? 'none' : mismatches.length === 0 ? 'met' : 'not_met',
      mismatches,
      baseline,
      changed: changes.length > 0,
      changes,
      ruleChanges: baseline === null ? [] : ruleChanges(baseline, now.outcome),
    });
  }
  return {
    tool: tool.name,
    cases: results,
    changed: results.filter((result) => result.changed).map((result) => result.id),
    notMet: results.filter((result) => result.expectation === 'not_met').map((result) => result.id),
  };
}

async function replay(
  tool: AnyToolImplementation,
  goldenCase: GoldenCase,
): Promise<{ outcome: CaseOutcome; modelResult: ModelResult }> {
  const recorded = goldenCase.handler;
  const replayed: AnyToolImplementation = {
    ...tool,
    handler: () =>
      'output' in recorded
        ? // The envelope is checked by the funnel like any handler's: a malformed one fails the protocol layer.
          Promise.resolve(recorded.output as never)
        : Promise.reject(
            recorded.thrown.code === null
              ? new Error('recorded exception')
              : new ToolError(recorded.thrown.code, toDetails(recorded.thrown.details)),
          ),
  };
  const execution = await executeTool(replayed, goldenCase.arguments, replayContext(goldenCase));
  return { outcome: outcomeOfAudit(execution.audit), modelResult: execution.modelResult };
}

/** A fixed trusted context per case: the same case always meets the same ids and clock. */
function replayContext(goldenCase: GoldenCase): ExecutionContext {
  const at = Date.parse(goldenCase.at);
  return {
    principal: { tenant: 'golden-set', subject: 'golden-set' },
    provider: {
      provider: 'golden-set',
      apiFamily: 'replay',
      responseId: null,
      providerCallId: null,
      adapterRevision: 'golden-set@1',
    },
    callId: `golden:${goldenCase.id}`,
    operationId: `golden:${goldenCase.id}`,
    idempotencyKey: `golden:${goldenCase.id}`,
    attempt: 1,
    now: () => at,
  };
}

function toDetails(details: unknown): Record<string, unknown> {
  return details !== null && typeof details === 'object' && !Array.isArray(details)
    ? (details as Record<string, unknown>)
    : {};
}

function expectationMisses(goldenCase: GoldenCase, outcome: CaseOutcome, modelResult: ModelResult): string[] {
  const expected = goldenCase.expect;
  if (expected === undefined) return [];
  const misses: string[] = [];
  if (outcome.status !== expected.status) misses.push(`status: expected ${expected.status}, got ${outcome.status}`);
  if (outcome.code !== expected.code)
    misses.push(`code: expected ${String(expected.code)}, got ${String(outcome.code)}`);
  for (const [pointer, value] of Object.entries(expected.data ?? {})) {
    const found = resolvePointer(modelResult.data, pointer);
    if (!found.found) misses.push(`data ${pointer}: expected ${canonicalJson(value)}, absent`);
    else if (canonicalJson(found.value) !== canonicalJson(value))
      misses.push(`data ${pointer}: expected ${canonicalJson(value)}, got ${canonicalJson(found.value)}`);
  }
  return misses;
}

function outcomeChanges(before: CaseOutcome, after: CaseOutcome): string[] {
  const fields = ['status', 'code', 'failedLayer'] as const;
  return fields
    .filter((field) => before[field] !== after[field])
    .map((field) => `${field}: ${String(before[field])} → ${String(after[field])}`);
}

function ruleChanges(before: CaseOutcome, after: CaseOutcome): string[] {
  const layers = [
    ...new Set([...Object.keys(before.rules), ...Object.keys(after.rules)]),
  ] as (keyof CaseOutcome['rules'])[];
  return layers
    .filter((layer) => before.rules[layer] !== after.rules[layer])
    .map((layer) => `${layer}: ${before.rules[layer] ?? '-'} → ${after.rules[layer] ?? '-'}`);
}
