import { VALIDATION_LAYERS, type LayerOutcome, type ValidationLayer } from '../audit-record.js';
import type { ToolOutput } from '../tool-handler.js';
import type { AnyToolImplementation } from '../tool-spec.js';
import type { BuiltEvidence } from '../evidence.js';
import type { ExecutionContext } from '../execution-context.js';
import type { Conflict, Receipt, Warning } from '../model-result.js';
import { callRedactor } from '../call-redactor.js';
import type { Redaction, Redactor } from '../redaction.js';
import { sha256Hex, type Sha256Hex } from '../sha256.js';
import { recordableContext } from './recordable-context.js';
import type { ArtifactPayload, ShownResult } from './tool-execution.js';

/** What ran of the handler: how long it took, and what it returned or threw. */
export interface HandlerRun {
  readonly ms: number;
  readonly settled: { readonly returned: unknown } | { readonly thrown: unknown };
}

/** The handler's data in canonical JSON, computed once: it serves both the raw digest and the artifact. */
export interface CanonicalData {
  readonly body: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** What the evidence layer established about the data. */
export interface CheckedEvidence {
  readonly evidence: readonly BuiltEvidence[];
  readonly observedAt: string | null;
  readonly conflicts: readonly Conflict[];
}

/** The downstream references a handler reported (audit only). */
export interface Downstream {
  readonly requestRef: string | null;
  readonly statusRef: string | null;
}

/** Where this call starts in a listing, for a tool that declares how it continues (set by the input layer). */
export interface PageStart {
  /** Items of the whole listing before this call's first item. */
  readonly position: number;
  /** The upstream cursor the handler is given (cursor continuations; `null` for the first page). */
  readonly upstreamCursor: string | null;
  /** Leading items of the handler's page that an earlier call already showed (it had cut the page to its budget). */
  readonly skip: number;
}

/** The verdict of each layer that decided, by layer; the audit lists them in {@link VALIDATION_LAYERS} order. */
export type Verdicts = Readonly<Partial<Record<ValidationLayer, LayerOutcome>>>;

/**
 * Everything known about one call at one point of the funnel. Steps never modify a state; each returns a new one,
 * so whatever a step learned is either in the state it returned or not known at all (a step that throws leaves
 * the state it started from). Fields are `null` until the step that establishes them has run.
 */
export interface FunnelState {
  readonly tool: AnyToolImplementation;
  /** The trusted context as it can be recorded (see `recordableContext`). */
  readonly ctx: ExecutionContext;
  /** Trusted values that had to be changed to be recorded; a call with any is refused. */
  readonly unrecordableContext: readonly string[];
  readonly now: () => number;
  readonly startedAt: number;
  readonly redactor: Redactor;
  /** The SHA-256 of every digest the call takes (the context's, else the pure-JavaScript one). */
  readonly sha256: Sha256Hex;
  /** Arguments exactly as the model sent them; unchecked until the input layer ran. */
  readonly sentArguments: unknown;
  /** Arguments as the input schema returned them. */
  readonly arguments: unknown;
  /** What `authorize` and the handler get: {@link arguments} with a sealed cursor replaced by the upstream's own. */
  readonly handlerArguments: unknown;
  readonly page: PageStart | null;
  /** What `request_sha256` is taken over. */
  readonly digestArguments: unknown;
  readonly handler: HandlerRun | null;
  /** What the handler did, kept as an artifact when the tool records its raw output (`recordRawOutput`). */
  readonly recording: ArtifactPayload | null;
  /** Read from the envelope before anything else can fail: a committed write keeps it whatever happens next. */
  readonly receipt: Receipt | null;
  /** The handler's envelope, once the protocol layer accepted its keys. */
  readonly envelope: ToolOutput<unknown> | null;
  readonly downstream: Downstream;
  readonly rawResponse: { readonly sha256: string; readonly bytes: number } | null;
  /**
   * Set (to the reason) when the data is far over its budget: schema and semantics are skipped, the evidence layer
   * checks the raw data, and the result carries no data. Nothing unvalidated is shown.
   */
  readonly overRawSize: string | null;
  readonly canonicalData: CanonicalData | null;
  /** The data as the output schema returned it (as the handler returned it, over the raw size gate). */
  readonly data: unknown;
  readonly checked: CheckedEvidence | null;
  /** The model-facing result of a call that passed every check, once redaction and budget shaped it. */
  readonly shown: ShownResult | null;
  readonly verdicts: Verdicts;
  readonly warnings: readonly Warning[];
  readonly redactions: readonly Redaction[];
  /** Where free text was moved out of `data` into `untrusted_content` (JSON Pointers; see `untrusted-text-step.ts`). */
  readonly isolatedTexts: readonly string[];
}

/** The state of a call that has not entered the funnel yet. */
export function startState(
  tool: AnyToolImplementation,
  trusted: ExecutionContext,
  sentArguments: unknown,
): FunnelState {
  const { ctx, unrecordable } = recordableContext(trusted);
  const now = ctx.now ?? Date.now;
  return {
    tool,
    ctx,
    unrecordableContext: unrecordable,
    now,
    startedAt: now(),
    redactor: callRedactor(tool, ctx),
    sha256: ctx.sha256 ?? sha256Hex,
    sentArguments,
    arguments: null,
    handlerArguments: null,
    page: null,
    digestArguments: null,
    handler: null,
    recording: null,
    receipt: null,
    envelope: null,
    downstream: { requestRef: null, statusRef: null },
    rawResponse: null,
    overRawSize: null,
    canonicalData: null,
    data: null,
    checked: null,
    shown: null,
    verdicts: {},
    warnings: [],
    redactions: [],
    isolatedTexts: [],
  };
}

/** The envelope of a state past the protocol layer; a step that needs it before then is a defect in the order. */
export function envelopeOf(state: FunnelState): ToolOutput<unknown> {
  if (state.envelope === null) throw new Error('internal: a funnel step ran before the envelope was checked');
  return state.envelope;
}

/** What the evidence layer established; a step that needs it before then is a defect in the order. */
export function checkedOf(state: FunnelState): CheckedEvidence {
  if (state.checked === null) throw new Error('internal: a funnel step ran before the evidence was checked');
  return state.checked;
}

/** The audit's layer log: every layer in funnel order, `skipped` where no step decided. */
export function layerLog(verdicts: Verdicts): LayerOutcome[] {
  return VALIDATION_LAYERS.map(
    (layer) => verdicts[layer] ?? { layer, outcome: 'skipped', rule_version: 'n/a', reason: 'not reached' },
  );
}
