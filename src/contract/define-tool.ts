import { z } from 'zod';
import type { ToolRevisions } from './audit-record.js';
import { canonicalJson } from './canonical-json.js';
import { isCatalogCode, type Recovery } from './error-catalog.js';
import { parsePointer } from './json-pointer.js';
import type { Continuation } from './model-result.js';
import { policyRevision } from './policy-revision.js';
import { BUILTIN_SENSITIVE_FIELDS, normalizeFieldName } from './redaction.js';
import { sha256Hex } from './sha256.js';
import { guidanceProblems, type ToolExample } from './tool-guidance.js';

/** What a tool does to the world. Anything but `read` is a side effect and is never blindly re-run. */
export type ToolEffect = 'read' | 'write' | 'destructive';

/** Size limits of what a model may see from one call (SPEC §5). */
export interface ToolBudget {
  /** Upper bound on the UTF-8 size of the serialized model result. */
  readonly maxBytes: number;
  /** Upper bound on the length of every array in `data`. */
  readonly maxItems: number;
  /** Upper bound on the length (in code points) of every string in `data` and untrusted text. */
  readonly maxTextChars: number;
  /** Deeper output is refused outright: pruning nested objects would break the output schema. */
  readonly maxDepth: number;
  /** JSON Pointer to the result's main list (item counts, continuation, cutting); default: `data` itself if an array. */
  readonly itemsPointer?: string;
}

/** Budget used for anything a tool does not set. */
export const DEFAULT_BUDGET: ToolBudget = Object.freeze({ maxBytes: 64 * 1024, maxItems: 200, maxTextChars: 8000, maxDepth: 32 });

/**
 * Largest arguments (UTF-8 bytes of their JSON) a tool takes unless it says otherwise. Arguments travel in workflow
 * history and in every activity input, so an unbounded one can exhaust Temporal's payload and gRPC limits.
 */
export const DEFAULT_MAX_ARGUMENT_BYTES = 256 * 1024;

/** Smallest byte budget a tool may declare: below it even an empty result would not fit. */
export const MIN_BUDGET_BYTES = 2048;

/** A versioned business invariant. `check` returns `true` when it holds, or a reason (or `false`) when not. */
export interface Invariant<Args, Data> {
  readonly id: string;
  readonly version: string | number;
  readonly check: (data: Data, args: Args) => boolean | string;
}

/** How old data may be, measured from the handler's `observedAt` to the call's clock. */
export interface FreshnessPolicy {
  readonly maxAgeMs: number;
  readonly onStale: 'warn' | 'fail';
}

/**
 * A business error code a tool may throw with {@link ToolError}, its safe message and what the model should do.
 * `status: 'needs_input'` declares a refusal that only more input can lift (a missing shipping address, an
 * ambiguous customer): the call did not run, and the model asks (`recovery` `ask_user`, the default for it) or
 * corrects its arguments (`correct_input`) instead of reporting a failure.
 */
export interface BusinessErrorDeclaration {
  readonly message: string;
  readonly recovery?: Recovery;
  /** Default `failed`. */
  readonly status?: 'failed' | 'needs_input';
}

/** Recoveries a `needs_input` business error may declare: both get the missing input, neither retries as is. */
export const NEEDS_INPUT_RECOVERIES: readonly Recovery[] = Object.freeze(['ask_user', 'correct_input']);

/** Where a tool's data comes from, and which sources it is allowed to use. */
export interface ToolSource {
  readonly label: string;
  readonly type: string;
  /**
   * Further labels the handler may report (as `sourceLabel` or an evidence item's `source`) besides `label`. Any
   * other reported label is `SOURCE_NOT_ALLOWED`: a handler cannot vouch for a source the tool did not declare.
   */
  readonly allowlist?: readonly string[];
  /** Defaults to `untrusted_data`: tool output is data about the world, not instructions. */
  readonly trust?: 'untrusted_data' | 'trusted_control';
}

/** The trusted caller of a tool: resolved by the host, never taken from model output. */
export interface Principal {
  readonly tenant: string;
  readonly subject: string;
}

/** What a handler gets besides its arguments. */
export interface HandlerContext {
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  readonly principal: Principal;
  readonly now: () => number;
  /** Aborted when the attempt must stop: cancelled, or (under the plugin) at its own start-to-close deadline. */
  readonly signal?: AbortSignal;
  /**
   * The dispatch fence. A write calls it immediately before the request that takes effect leaves the process (after
   * any preparation, right before `fetch`). Under the plugin it checks, in one statement, that this attempt's claim
   * on the idempotency key is still held, unrevoked and before its deadline, and marks it dispatched; it throws a
   * `ToolError` `TIMEOUT_BEFORE_EXECUTE` (the write did not start) when reconciliation revoked the claim or its
   * deadline passed — let that propagate, and send nothing. Outside the plugin it resolves at once. A write that does
   * not call it gets the weaker guarantee: a late commit is detected, audited and escalated, not prevented.
   */
  readonly beforeDispatch: () => Promise<void>;
}

/** The dispatch fence of a call with no ledger lease behind it (run outside the plugin, or a reconcile query). */
export function openDispatchFence(): Promise<void> {
  return Promise.resolve();
}

/** A timestamp as handlers may give it: a Date, epoch milliseconds or an ISO-8601 string. */
export type TimeInput = Date | number | string;

/** Evidence a handler cites: `supports` are JSON Pointers into its `data`. */
export interface EvidenceInput {
  readonly kind: string;
  readonly locator: string;
  readonly supports: readonly string[];
  readonly quote?: string;
  readonly observedAt?: TimeInput;
  /** Source label of this piece of evidence; defaults to the result's source. */
  readonly source?: string;
}

/** External free text returned alongside the facts: isolated, never merged into `data`. */
export interface UntrustedInput {
  readonly text: string;
  readonly source: string;
}

/** Two or more sources disagreeing on one field of `data`. */
export interface ConflictInput {
  readonly field: string;
  readonly values: readonly { readonly value: unknown; readonly source: string }[];
}

/** The raw bytes a handler received from upstream, kept for the audit digest and the artifact store. */
export interface RawResponse {
  readonly body: Uint8Array | string;
  readonly contentType: string;
}

/** A write's confirmation by the authoritative system. */
export interface SideEffectReceipt {
  readonly externalId: string;
  readonly committedAt?: TimeInput;
}

/** What a handler returns: the facts plus what it knows about them. */
export interface ToolOutput<Data> {
  readonly data: Data;
  readonly observedAt?: TimeInput;
  readonly resourceRevision?: string;
  readonly sourceLabel?: string;
  readonly evidence?: readonly EvidenceInput[];
  readonly untrusted?: readonly UntrustedInput[];
  readonly conflicts?: readonly ConflictInput[];
  /**
   * Where the listing goes on: with an `offset` continuation, the absolute offset of the next item; with a `cursor`
   * continuation, the upstream's cursor (the model sees it sealed). Omitted or `null`: no further page.
   */
  readonly next?: Continuation | null;
  /** Items available from this call's first item on (this page and every later one); `null` = unknown, never 0. */
  readonly availableItems?: number | null;
  readonly appliedArguments?: unknown;
  readonly receipt?: SideEffectReceipt;
  readonly rawResponse?: RawResponse;
  readonly downstream?: { readonly requestRef?: string; readonly statusRef?: string };
  /** Notes for the model about this result (UPPER_SNAKE code, message); redacted and bounded like any handler text. */
  readonly warnings?: readonly { readonly code: string; readonly message: string }[];
}

/**
 * What a handler returns instead of a {@link ToolOutput} when the authoritative system accepted an asynchronous
 * job and has not finished it: its handle for the job (to poll with) and, when it said, how long to wait first.
 * Only side-effecting tools may; the result is `accepted` and the workflow polls the job (see `poll`).
 */
export interface AcceptedJob {
  readonly accepted: { readonly handle: string; readonly pollAfterMs?: number };
  readonly downstream?: { readonly requestRef?: string; readonly statusRef?: string };
}

/** What the authoritative system says about a write, asked by idempotency key. */
export type ReconcileOutcome<Data> =
  | { readonly state: 'committed'; readonly output: ToolOutput<Data> }
  | { readonly state: 'not_committed' }
  | { readonly state: 'unknown'; readonly reason?: string };

/** What {@link ToolSpec.authorize} gets besides the arguments and the principal. */
export interface AuthorizationContext {
  readonly tool: string;
  readonly callId: string;
  readonly operationId: string;
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

/**
 * Decides whether the principal may make this call: `true` allows it; anything else refuses it as
 * `PERMISSION_DENIED`, and a string is the reason the audit records (the model sees only the catalog text).
 */
export type Authorize<Args> = (args: Args, principal: Principal, ctx: AuthorizationContext) => boolean | string | Promise<boolean | string>;

/**
 * Whose data a read returns: JSON Pointers, into each item of the tool's main list (`budget.itemsPointer`, or `data`
 * itself when it is an array) or else into `data`, to the record's tenant and/or subject. A record whose value there
 * is not exactly the caller's is out of scope, and so is one without it.
 */
export interface DataScope {
  readonly tenantPointer?: string;
  readonly subjectPointer?: string;
}

/**
 * How a listing continues. `offset`: the named argument takes the absolute position of the next item. `cursor`: the
 * named argument takes the cursor the executor sealed for this principal, tool and arguments (valid `ttlMs`, default
 * 15 minutes); the handler only ever sees the upstream's own cursor.
 */
export type ToolContinuation =
  | { readonly kind: 'offset'; readonly argument: string }
  | { readonly kind: 'cursor'; readonly argument: string; readonly ttlMs?: number };

/** How long a sealed cursor stays valid unless the tool says otherwise. */
export const DEFAULT_CURSOR_TTL_MS = 15 * 60_000;

/**
 * How the runtime runs this tool's calls unless a call says otherwise (per-call options win). Unset fields take the
 * package defaults (see `docs/temporal-runtime.md`).
 */
export interface ToolCallDefaults {
  /** Time one attempt may take, in milliseconds. A write that exceeds it is reconciled. */
  readonly timeoutMs?: number;
  /** Attempts of a read whose failure the catalog calls retryable. Writes always get one attempt. */
  readonly readAttempts?: number;
  /**
   * Longest silence, in milliseconds, between two heartbeats of a running attempt. The runtime heartbeats for the
   * handler while it runs; a workflow cancel reaches the handler (`ctx.signal`) within about this long, and a dead
   * worker is noticed after it instead of the whole attempt timeout.
   */
  readonly heartbeatTimeoutMs?: number;
}

/** What a user passes to {@link defineTool}. */
export interface ToolSpec<In extends z.ZodType, Out extends z.ZodType> {
  readonly name: string;
  /**
   * Earlier names of a renamed tool. A call made under one (a workflow still running, an activity already
   * scheduled, a recorded history) keeps being served, as that name: its results, keys and digests stay the ones it
   * started with. Models are offered only `name`.
   */
  readonly aliases?: readonly string[];
  /** What the tool is for and when to use it; refused when empty or when it only restates the name. */
  readonly description: string;
  /** Example calls, shown to the model in every provider's description; each must pass the input schema. */
  readonly examples?: readonly ToolExample<z.input<In>>[];
  /**
   * Rules by which arguments change before use ("amounts are in cents", "names are trimmed"), shown to the model
   * with the description; the result's `applied_arguments` then shows what actually ran.
   */
  readonly normalizations?: readonly string[];
  readonly input: In;
  /** Exact output schema: keys it does not declare are rejected wherever they appear, never stripped. */
  readonly output: Out;
  readonly effect: ToolEffect;
  /** Defaults to `true` for a `destructive` tool (which must say `false` to opt out), else `false`. */
  readonly requiresApproval?: boolean;
  readonly source: ToolSource;
  /** Asked before the handler runs (and again at dispatch, after any approval); see {@link Authorize}. */
  readonly authorize?: Authorize<z.output<In>>;
  /** Reads only: the data must belong to the caller (see {@link DataScope}); checked before any other output check. */
  readonly scope?: DataScope;
  /** Reads only: how the model continues a truncated or paginated listing (see {@link ToolContinuation}). */
  readonly continuation?: ToolContinuation;
  /** How the runtime runs this tool's calls unless a call says otherwise. */
  readonly callDefaults?: ToolCallDefaults;
  /** Larger arguments are refused as `INVALID_ARGUMENTS` before anything runs (default {@link DEFAULT_MAX_ARGUMENT_BYTES}). */
  readonly maxArgumentBytes?: number;
  /** Most calls of this tool one workflow may make (across continue-as-new of the agent loop); more are `CALL_LIMIT_EXCEEDED`. */
  readonly callLimit?: number;
  readonly revisions?: Partial<ToolRevisions>;
  readonly budget?: Partial<ToolBudget>;
  /** Field names removed from `data` wherever they occur, in addition to the built-in credential list. */
  readonly sensitiveFields?: readonly string[];
  /**
   * Field names that sound secret but are not, in this tool's data (a conference's `session`, a game's `token`
   * count): redaction keeps these fields. Their values are still scanned, so a secret-shaped value inside one is
   * hidden all the same. A built-in credential or control name, or one of `sensitiveFields`, cannot be listed.
   */
  readonly publicFields?: readonly string[];
  readonly invariants?: readonly Invariant<z.output<In>, z.output<Out>>[];
  readonly freshness?: FreshnessPolicy;
  readonly businessErrors?: Readonly<Record<string, BusinessErrorDeclaration>>;
  /** Fields (JSON Pointers into `data`) whose conflicts the tool resolves by a named rule. */
  readonly aggregations?: Readonly<Record<string, string>>;
  /**
   * Keep what the handler returned or threw, with the validated arguments, as a redacted artifact referenced from
   * the audit (`recorded_output`), so recorded calls can become golden cases. Off by default.
   */
  readonly recordRawOutput?: boolean;
  /**
   * Derives a business idempotency key from the arguments; by default the host derives one per call. The host scopes
   * it by tenant (`<tool>:<tenant ref>:<business key>`, see `businessIdempotencyKey`), and that scoped key is what the
   * handler and `reconcile` receive.
   */
  readonly idempotencyKey?: (args: z.output<In>) => string;
  readonly handler: (args: z.output<In>, ctx: HandlerContext) => Promise<ToolOutput<z.input<Out>> | AcceptedJob>;
  /** For writes: ask the authoritative system whether the write with this key took effect. */
  readonly reconcile?: (idempotencyKey: string, ctx: HandlerContext) => Promise<ReconcileOutcome<z.input<Out>>>;
  /**
   * For tools that start asynchronous jobs: ask about the job with this handle (from {@link AcceptedJob}).
   * `committed` = the job finished and this is its output (validated like a fresh one), `not_committed` = it ended
   * without taking effect, `unknown` = still running. Without it an accepted job is asked about with `reconcile`.
   */
  readonly poll?: (handle: string, ctx: HandlerContext) => Promise<ReconcileOutcome<z.input<Out>>>;
}

/** A validated, normalized tool definition (see {@link defineTool}). */
export interface ToolDefinition<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType>
  extends Omit<ToolSpec<In, Out>, 'revisions' | 'budget' | 'sensitiveFields' | 'publicFields' | 'invariants' | 'requiresApproval' | 'examples' | 'normalizations' | 'maxArgumentBytes' | 'aliases'> {
  readonly requiresApproval: boolean;
  readonly aliases: readonly string[];
  readonly maxArgumentBytes: number;
  readonly examples: readonly ToolExample<z.input<In>>[];
  readonly normalizations: readonly string[];
  readonly revisions: ToolRevisions;
  readonly budget: ToolBudget;
  readonly sensitiveFields: readonly string[];
  readonly publicFields: readonly string[];
  readonly invariants: readonly Invariant<z.output<In>, z.output<Out>>[];
}

/** Any tool definition, whatever its schemas. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- handler parameter types are contravariant; a registry holds every tool.
export type AnyToolDefinition = ToolDefinition<any, any>;

/** Names valid for every provider dialect after reversible mapping (dots are mapped by the adapters). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]{0,127}$/;
const BUSINESS_CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;

/** Thrown by {@link defineTool} for a definition that cannot work; a programming error, not a tool result. */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
}

/**
 * Validates and freezes a tool definition. Schema revisions default to a digest of the schema's JSON Schema and the
 * policy revision to a digest of every policy setting, so a changed schema or policy is a changed contract even when
 * nobody bumps a number.
 */
export function defineTool<In extends z.ZodType, Out extends z.ZodType>(spec: ToolSpec<In, Out>): ToolDefinition<In, Out> {
  const fail = (why: string): never => {
    throw new ToolDefinitionError(`tool '${String(spec.name)}': ${why}`);
  };
  if (!TOOL_NAME_PATTERN.test(spec.name)) fail(`name must match ${TOOL_NAME_PATTERN}`);
  const aliases = spec.aliases ?? [];
  for (const alias of aliases) {
    if (typeof alias !== 'string' || !TOOL_NAME_PATTERN.test(alias)) fail(`alias '${String(alias)}' must match ${TOOL_NAME_PATTERN}`);
  }
  if (new Set([spec.name, ...aliases]).size !== aliases.length + 1) fail('aliases must differ from the name and from each other');
  if (!(spec.input instanceof z.ZodType) || !(spec.output instanceof z.ZodType)) fail('input and output must be zod schemas');
  if (!['read', 'write', 'destructive'].includes(spec.effect)) fail(`unknown effect '${String(spec.effect)}'`);
  if (spec.reconcile && spec.effect === 'read') fail('only side-effecting tools can reconcile');
  if (spec.poll && spec.effect === 'read') fail('only side-effecting tools can start jobs to poll');
  if (typeof spec.handler !== 'function') fail('handler must be a function');
  for (const problem of guidanceProblems(spec.name, spec.input, spec)) fail(problem);
  const budget: ToolBudget = { ...DEFAULT_BUDGET, ...spec.budget };
  if (!Number.isSafeInteger(budget.maxBytes) || budget.maxBytes < MIN_BUDGET_BYTES) fail(`budget.maxBytes must be an integer ≥ ${MIN_BUDGET_BYTES}`);
  for (const key of ['maxItems', 'maxTextChars', 'maxDepth'] as const) {
    if (!Number.isSafeInteger(budget[key]) || budget[key] < 1) fail(`budget.${key} must be a positive integer`);
  }
  for (const [code, declared] of Object.entries(spec.businessErrors ?? {})) {
    if (!BUSINESS_CODE_PATTERN.test(code) || isCatalogCode(code)) fail(`business code '${code}' must be UPPER_SNAKE and not a catalog code`);
    if (declared.status !== undefined && declared.status !== 'failed' && declared.status !== 'needs_input') fail(`business code '${code}' has an unknown status`);
    if (declared.status === 'needs_input' && declared.recovery !== undefined && !NEEDS_INPUT_RECOVERIES.includes(declared.recovery)) {
      fail(`business code '${code}' needs input, so its recovery must be one of ${NEEDS_INPUT_RECOVERIES.join(', ')}`);
    }
  }
  const invariantIds = new Set<string>();
  for (const invariant of spec.invariants ?? []) {
    if (invariantIds.has(invariant.id)) fail(`duplicate invariant '${invariant.id}'`);
    invariantIds.add(invariant.id);
  }
  if (spec.freshness && !(spec.freshness.maxAgeMs > 0)) fail('freshness.maxAgeMs must be positive');
  if (spec.authorize !== undefined && typeof spec.authorize !== 'function') fail('authorize must be a function');
  for (const problem of [...scopeProblems(spec), ...continuationProblems(spec)]) fail(problem);
  if (spec.callLimit !== undefined && !(Number.isSafeInteger(spec.callLimit) && spec.callLimit > 0)) fail('callLimit must be a positive integer');
  const exactNames = new Set([...BUILTIN_SENSITIVE_FIELDS, ...(spec.sensitiveFields ?? [])].map(normalizeFieldName));
  for (const name of spec.publicFields ?? []) {
    if (typeof name !== 'string' || normalizeFieldName(name) === '') fail('publicFields must be field names');
    if (exactNames.has(normalizeFieldName(name))) fail(`publicFields cannot list '${name}': it names a credential or control field (built in, or in sensitiveFields)`);
  }
  for (const problem of callDefaultsProblems(spec.callDefaults)) fail(problem);
  const maxArgumentBytes = spec.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
  if (!isPositiveInteger(maxArgumentBytes)) fail('maxArgumentBytes must be a positive integer');
  // A destructive tool asks a person first unless its author opted out in so many words.
  const requiresApproval = spec.requiresApproval ?? spec.effect === 'destructive';
  const revisions: ToolRevisions = {
    input: spec.revisions?.input ?? schemaRevision(spec.input),
    output: spec.revisions?.output ?? schemaRevision(spec.output),
    effect: spec.revisions?.effect ?? `${spec.effect}${requiresApproval ? '+approval' : ''}`,
    handler: spec.revisions?.handler ?? '1',
    producer: spec.revisions?.producer ?? '1',
    policy: spec.revisions?.policy ?? policyRevision({ ...spec, budget }),
  };
  return Object.freeze({
    ...spec,
    requiresApproval,
    maxArgumentBytes,
    aliases: Object.freeze([...aliases]),
    revisions: Object.freeze(revisions),
    budget: Object.freeze(budget),
    sensitiveFields: Object.freeze([...(spec.sensitiveFields ?? [])]),
    publicFields: Object.freeze([...(spec.publicFields ?? [])]),
    invariants: Object.freeze([...(spec.invariants ?? [])]),
    examples: Object.freeze([...(spec.examples ?? [])]),
    normalizations: Object.freeze([...(spec.normalizations ?? [])]),
  });
}

function callDefaultsProblems(defaults: ToolCallDefaults | undefined): string[] {
  if (defaults === undefined) return [];
  const keys = ['timeoutMs', 'readAttempts', 'heartbeatTimeoutMs'] as const;
  return keys.filter((key) => defaults[key] !== undefined && !isPositiveInteger(defaults[key])).map((key) => `callDefaults.${key} must be a positive integer`);
}

function isPositiveInteger(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

function scopeProblems(spec: ToolSpec<z.ZodType, z.ZodType>): string[] {
  const { scope } = spec;
  if (scope === undefined) return [];
  if (spec.effect !== 'read') return ['scope applies to reads only (a write is authorized before it runs)'];
  const pointers = [scope.tenantPointer, scope.subjectPointer].filter((pointer) => pointer !== undefined);
  if (pointers.length === 0) return ['scope needs a tenantPointer or a subjectPointer'];
  return pointers.filter((pointer) => typeof pointer !== 'string' || parsePointer(pointer) === null).map((pointer) => `scope pointer '${String(pointer)}' is not a JSON Pointer`);
}

function continuationProblems(spec: ToolSpec<z.ZodType, z.ZodType>): string[] {
  const { continuation } = spec;
  if (continuation === undefined) return [];
  if (spec.effect !== 'read') return ['continuation applies to reads only'];
  if (continuation.kind !== 'offset' && continuation.kind !== 'cursor') return [`unknown continuation kind '${String((continuation as { kind: unknown }).kind)}'`];
  // The executor rewrites this one argument, so the input must be an object schema that declares it.
  if (!(spec.input instanceof z.ZodObject) || !Object.hasOwn(spec.input.shape, continuation.argument)) {
    return [`continuation argument '${String(continuation.argument)}' must be a key of the input object schema`];
  }
  if (continuation.kind === 'cursor' && continuation.ttlMs !== undefined && !(Number.isSafeInteger(continuation.ttlMs) && continuation.ttlMs > 0)) {
    return ['continuation.ttlMs must be a positive integer'];
  }
  return [];
}

function schemaRevision(schema: z.ZodType): string {
  const jsonSchema = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' });
  return `sha256:${sha256Hex(canonicalJson(jsonSchema)).slice(0, 16)}`;
}
