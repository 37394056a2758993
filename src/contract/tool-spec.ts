// What a tool is (ToolDeclarationSpec → ToolDeclaration, see declare-tool.ts) and how it runs (ToolImplementationSpec →
// ToolImplementation, see implement-tool.ts), with the package's defaults.
import type { z } from 'zod';
import type { ToolRevisions } from './audit-record.js';
import type { Recovery } from './error-catalog.js';
import type { Precondition } from './preconditions.js';
import type { ReceiptVisibility } from './receipt-visibility.js';
import type { AcceptedJob, HandlerContext, Principal, ReconcileOutcome, ToolOutput } from './tool-handler.js';
import type { ToolExample } from './tool-guidance.js';
import type { ToolFacts } from './tool-facts.js';

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
  /**
   * JSON Pointer to the result's main list (item counts, continuation, cutting); default: the array when the output
   * schema is an object whose only property is an array, else `data` itself if an array.
   */
  readonly itemsPointer?: string;
}

/** Budget used for anything a tool does not set. */
export const DEFAULT_BUDGET: ToolBudget = Object.freeze({
  maxBytes: 64 * 1024,
  maxItems: 200,
  maxTextChars: 8000,
  maxDepth: 32,
});

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
  /**
   * Declarative (issue 27, item 8; rule in verification-findings.ts): show the reason `check` returns to the model, as
   * the warning `VERIFICATION_FINDING` (redacted, cut to 500 characters), so the next call can repair what it found
   * (a post-write check's "syntax error at line 12"). Off by default: a reason may quote the data that was refused.
   */
  readonly visibleReason?: boolean;
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

/** What {@link ToolDeclarationSpec.authorize} gets besides the arguments and the principal. */
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
export type Authorize<Args> = (
  args: Args,
  principal: Principal,
  ctx: AuthorizationContext,
) => boolean | string | Promise<boolean | string>;

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

/**
 * What a tool is, as its author declares it with `declareTool`: its name, schemas, effect, approval, business key,
 * budget, limits, call defaults and the rules its results are judged by. Data, schemas and pure checks only, so the
 * same declaration is imported by workflow code (inside the sandbox) and by the worker; how the tool runs is bound to
 * it on the worker (`implementTool`, {@link ToolImplementationSpec}).
 */
export interface ToolDeclarationSpec<In extends z.ZodType, Out extends z.ZodType> {
  readonly name: string;
  /**
   * Earlier names of a renamed tool. A call made under one (a workflow still running, an activity already
   * scheduled, a recorded history) keeps being served, as that name: its results and digests stay the ones it
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
  /**
   * Declarative (issue 27, item 13; seed 003: a description says what a call returns and what it costs). Rendered in
   * every provider's description; when absent, derived from the output schema (`returns`) and from the effect,
   * approval, time limit and call limit (`cost`).
   */
  readonly returns?: string;
  readonly cost?: string;
  readonly input: In;
  /** Exact output schema: keys it does not declare are rejected wherever they appear, never stripped. */
  readonly output: Out;
  readonly effect: ToolEffect;
  /** @default `true` for a `destructive` tool (which must say `false` to opt out), else `false` */
  readonly requiresApproval?: boolean;
  readonly source: ToolSource;
  /** Reads only: the data must belong to the caller (see {@link DataScope}); checked before any other output check. */
  readonly scope?: DataScope;
  /** Reads only: how the model continues a truncated or paginated listing (see {@link ToolContinuation}). */
  readonly continuation?: ToolContinuation;
  /** How the runtime runs this tool's calls unless a call says otherwise. */
  readonly callDefaults?: ToolCallDefaults;
  /** Larger arguments are refused as `INVALID_ARGUMENTS` before anything runs. @default {@link DEFAULT_MAX_ARGUMENT_BYTES} */
  readonly maxArgumentBytes?: number;
  /** Most calls of this tool one workflow may make (across continue-as-new of the agent loop); more are `CALL_LIMIT_EXCEEDED`. */
  readonly callLimit?: number;
  readonly revisions?: Partial<ToolRevisions>;
  /** @default {@link DEFAULT_BUDGET} for every field not given */
  readonly budget?: Partial<ToolBudget>;
  /** Field names removed from `data` wherever they occur, in addition to the built-in credential list. */
  readonly sensitiveFields?: readonly string[];
  /**
   * Field names that sound secret but are not, in this tool's data (a conference's `session`, a game's `token`
   * count): redaction keeps these fields. Their values are still scanned, so a secret-shaped value inside one is
   * hidden all the same. A built-in credential or control name, or one of `sensitiveFields`, cannot be listed.
   */
  readonly publicFields?: readonly string[];
  /**
   * Argument fields (JSON Pointers into the arguments) an approver must see although their names look sensitive,
   * e.g. `/credentials/act_as`. Secret-shaped values in them stay masked. Only the approval preview uses it.
   */
  readonly visibleToApprovers?: readonly string[];
  readonly invariants?: readonly Invariant<z.output<In>, z.output<Out>>[];
  readonly freshness?: FreshnessPolicy;
  readonly businessErrors?: Readonly<Record<string, BusinessErrorDeclaration>>;
  /** Fields (JSON Pointers into `data`) whose conflicts the tool resolves by a named rule. */
  readonly aggregations?: Readonly<Record<string, string>>;
  /**
   * Declarative (issue 27, item 10; rule in validity-window.ts): how long a result of this tool may be relied on,
   * from when its fact was observed (else read). The model result says until when (`provenance.valid_until`).
   */
  readonly validForMs?: number;
  /**
   * Declarative (issue 27, item 9; rule in authoritative-sources.ts): for a field of `data` (a JSON Pointer) that
   * sources may disagree on, the source label that decides it. A reported conflict there is resolved to that source's
   * value — the data is switched to it before it is validated — and shown as `authoritative`.
   */
  readonly authoritativeSources?: Readonly<Record<string, string>>;
  /**
   * Declarative (issue 27, item 13; rule in redaction/url-allowlist.ts): the domains whose links a model may be shown
   * from this tool (each domain and everything below it). Any other `http(s)` link in text a model sees is hidden
   * like a secret. Absent: links are not filtered.
   */
  readonly allowedUrlDomains?: readonly string[];
  /**
   * Declarative (issue 27, item 7; rule in untrusted-data-text.ts): fields of `data` that hold external free text (a
   * third-party `recommendation`, a ticket `body`). Their string values are moved into `untrusted_content` (fenced
   * by every adapter) and a marker takes their place. Text elsewhere in `data` moves when it reads like instructions.
   */
  readonly untrustedTextFields?: readonly string[];
  /**
   * Declarative (issue 27, item 12; rule in receipt-visibility.ts): whether the model sees a write's receipt id
   * (`model`, the default) or only the protected audit keeps it (`audit_only`: the model's receipt has
   * `external_id: null`). Side-effecting tools only.
   */
  readonly receiptVisibility?: ReceiptVisibility;
  /**
   * Keep what the handler returned or threw, with the validated arguments, as a redacted artifact referenced from
   * the audit (`recorded_output`), so recorded calls can become golden cases. @default false
   */
  readonly recordRawOutput?: boolean;
  /**
   * The arguments that name one business intent ("one refund per order": `['order_id']`), as argument names or JSON
   * Pointers into the arguments as sent. The idempotency key is then `<tool>:<tenant ref>:<the parts>` (see
   * `businessIdempotencyKey`), which the handler and `reconcile` receive; without it each call has its own key,
   * `<workflow id>:<call id>`. Workflow code and the worker derive it the same way (`identifyCall`).
   */
  readonly businessKey?: readonly (ArgumentName<In> | `/${string}`)[];
  /**
   * The name business keys are scoped by, in place of `name` (the `<tool>` of the scoped key). A renamed tool with a
   * business key must give it — the name its keys were made under — so a write made before and after the rename is
   * one key and runs once; `declareTool` refuses a renamed tool with a business key without it.
   */
  readonly idempotencyScope?: string;
}

/** The top-level argument names of an input schema (any string when the input is not an object). */
export type ArgumentName<In extends z.ZodType> =
  z.input<In> extends Record<string, unknown> ? Extract<keyof z.input<In>, string> : string;

/** How a tool runs, bound to its declaration on the worker with `implementTool`. */
export interface ToolImplementationSpec<In extends z.ZodType, Out extends z.ZodType> {
  readonly handler: (args: z.output<In>, ctx: HandlerContext) => Promise<ToolOutput<z.input<Out>> | AcceptedJob>;
  /** For writes: ask the authoritative system whether the write with this key took effect. */
  readonly reconcile?: (idempotencyKey: string, ctx: HandlerContext) => Promise<ReconcileOutcome<z.input<Out>>>;
  /**
   * For tools that start asynchronous jobs: ask about the job with this handle (from {@link AcceptedJob}).
   * `committed` = the job finished and this is its output (validated like a fresh one), `not_committed` = it ended
   * without taking effect, `unknown` = still running. Without it an accepted job is asked about with `reconcile`.
   */
  readonly poll?: (handle: string, ctx: HandlerContext) => Promise<ReconcileOutcome<z.input<Out>>>;
  /** Asked before the handler runs (and again at dispatch, after any approval); see {@link Authorize}. */
  readonly authorize?: Authorize<z.output<In>>;
  /**
   * What a write rests on, read again right before its handler runs (rule in preconditions.ts; seed 000). The reads
   * are other implemented tools and run on the worker, so they belong here, not in the declaration. Side-effecting
   * tools only; each read's rule (`precondition:<id>@<tool>;policy=…`) is recorded in the audit's layer records.
   */
  readonly preconditions?: readonly Precondition<z.output<In>>[];
}

/** A validated, normalized tool declaration (see `declareTool`). */
export interface ToolDeclaration<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType> extends Omit<
  ToolDeclarationSpec<In, Out>,
  | 'revisions'
  | 'budget'
  | 'sensitiveFields'
  | 'publicFields'
  | 'visibleToApprovers'
  | 'invariants'
  | 'requiresApproval'
  | 'examples'
  | 'normalizations'
  | 'maxArgumentBytes'
  | 'aliases'
> {
  readonly requiresApproval: boolean;
  readonly aliases: readonly string[];
  readonly maxArgumentBytes: number;
  readonly examples: readonly ToolExample<z.input<In>>[];
  readonly normalizations: readonly string[];
  readonly revisions: ToolRevisions;
  readonly budget: ToolBudget;
  readonly sensitiveFields: readonly string[];
  readonly publicFields: readonly string[];
  readonly visibleToApprovers: readonly string[];
  readonly invariants: readonly Invariant<z.output<In>, z.output<Out>>[];
  /** What workflow code acts on, as plain data (see {@link ToolFacts}). */
  readonly facts: ToolFacts;
}

/** A declaration with how it runs: what a worker registers and the contract funnel executes (see `implementTool`). */
export interface ToolImplementation<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType>
  extends ToolDeclaration<In, Out>, ToolImplementationSpec<In, Out> {}

/** Any tool declaration, whatever its schemas. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema types are invariant; a catalog holds every tool.
export type AnyToolDeclaration = ToolDeclaration<any, any>;

/** Any implemented tool, whatever its schemas. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- handler parameter types are contravariant; a registry holds every tool.
export type AnyToolImplementation = ToolImplementation<any, any>;

/** Names valid for every provider dialect after reversible mapping (dots are mapped by the adapters). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]{0,127}$/;
