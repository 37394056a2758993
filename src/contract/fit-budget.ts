import type { ToolBudget } from './tool-spec.js';
import { evidenceStillSupported, type BuiltEvidence } from './evidence.js';
import { renderUntrustedContent } from './fence-untrusted.js';
import { resolvePointer } from './json-pointer.js';
import type {
  Completeness,
  ContinueWith,
  Continuation,
  ItemRange,
  ModelResult,
  UntrustedContent,
  Warning,
} from './model-result.js';
import type { Redaction } from './redaction.js';
import {
  cutText,
  isCutText,
  largestFitting,
  limitStructure,
  locateItemsList,
  utf8ByteLength,
  withItemCount,
  type StructuralLimits,
  type TruncationNote,
} from './truncation.js';

/** Everything of a successful model result except the parts the budget may shrink. */
export type ResultBase = Omit<ModelResult, 'status' | 'data' | 'completeness' | 'evidence' | 'untrusted_content'>;

/** Input of {@link fitToBudget}. */
export interface FitInput {
  readonly base: ResultBase;
  /** The validated data, unredacted and uncut. */
  readonly data: unknown;
  /** Redacts what survives the cut; called with a fresh log for every candidate. */
  readonly redact: (shown: unknown, log: Redaction[]) => unknown;
  readonly evidence: readonly BuiltEvidence[];
  readonly untrusted: readonly UntrustedContent[];
  readonly budget: ToolBudget;
  /** What the tool said about its own pagination. */
  readonly pagination: { readonly next: Continuation | null; readonly availableItems: number | null };
  /**
   * Decides the continuation of each candidate (it changes with the items that fit, and its size counts). Without
   * it, a cut continues at an offset into this call's full result and the tool's own continuation passes through.
   */
  readonly paging?: (page: PageFacts) => PageView;
  /** Added to the warnings of a candidate whose shown data had anything redacted (unless the base carries it). */
  readonly redactionWarning?: Warning;
}

/** What fitting established about the main list of one candidate result. */
export interface PageFacts {
  /** The result has a main list (`budget.itemsPointer`, or `data` as an array). */
  readonly listing: boolean;
  readonly returned: number;
  /** Fitting dropped items of the main list. */
  readonly itemsCut: boolean;
  /** The handler's own continuation. */
  readonly upstreamNext: Continuation | null;
  /** What fitting alone would offer: an offset into this call's full result after a cut, else the handler's own. */
  readonly defaultNext: Continuation | null;
  /** `completeness.available_items` of the candidate. */
  readonly available: number | null;
}

/** How a result continues, as the model sees it (see {@link FitInput.paging}); an `undefined` part is left out. */
export interface PageView {
  readonly next: Continuation | null;
  readonly range?: ItemRange | undefined;
  readonly continueWith?: ContinueWith | undefined;
  readonly notice?: string | undefined;
}

/** Output of {@link fitToBudget}. */
export interface Fitted {
  readonly modelResult: ModelResult;
  readonly truncated: boolean;
  /** Evidence that survived truncation (its pointers still resolve). */
  readonly evidence: readonly BuiltEvidence[];
  /** Redactions made in the data that is shown. */
  readonly redactions: readonly Redaction[];
}

/** Serialized size of the largest possible `"artifact":{…},` member. */
const ARTIFACT_REF_RESERVE = JSON.stringify({
  artifact: { artifact_id: `art_${'0'.repeat(64)}`, content_type: 'application/json', bytes: Number.MAX_SAFE_INTEGER },
}).length;

/** Text limits tried in turn when whole items alone cannot bring a result under its byte budget. */
const FALLBACK_TEXT_LIMITS = [1024, 256, 64];

/**
 * Shrinks a result structurally until its serialized form fits `budget.maxBytes`: first the item and text limits,
 * then fewer whole items of the main list, then shorter strings, and as a last resort no data at all (the full
 * result then lives only in the artifact). The output is always within budget and always valid JSON, because it
 * is built as values and measured after serialization — never cut out of serialized text.
 */
export function fitToBudget(input: FitInput): Fitted {
  const { budget } = input;
  const itemsPointer = locateItemsList(input.data, budget.itemsPointer);
  const originalItems = itemsPointer === null ? null : listLength(input.data, itemsPointer);
  const textLimits = [budget.maxTextChars, ...FALLBACK_TEXT_LIMITS.filter((limit) => limit < budget.maxTextChars)];

  // Items are cut before redaction (items that can never be shown are not walked), text only after it: a cut through
  // a secret or the idempotency key would leave a prefix that no pattern recognises.
  const itemNotes: TruncationNote[] = [];
  const itemsOnly = limitStructure(input.data, { maxItems: budget.maxItems, maxTextChars: Infinity }, itemNotes);
  // Cuts of the main list are accounted for by item counts; every other cut is reported as structural.
  const nestedCut = itemNotes.some((note) => note.kind === 'items' && note.path !== itemsPointer);
  for (const maxTextChars of textLimits) {
    const textLimit = { maxItems: Infinity, maxTextChars };
    const untrusted = input.untrusted.map((item) => ({ ...item, text: cutText(item.text, maxTextChars) }));
    const growth = renderingGrowth(untrusted);
    const fits = (fitted: Fitted) => fitsBudget(fitted, budget.maxBytes, growth);
    // Items far past the byte budget can never be shown, so they are neither redacted nor measured.
    const candidates =
      itemsPointer === null
        ? itemsOnly
        : withItemCount(itemsOnly, itemsPointer, itemsWithin(itemsOnly, itemsPointer, textLimit, 2 * budget.maxBytes));
    const redactions: Redaction[] = [];
    const textNotes: TruncationNote[] = [];
    const shown = limitStructure(input.redact(candidates, redactions), textLimit, textNotes);
    const textCut =
      textNotes.length > 0 ||
      untrusted.some((item, i) => item.text !== input.untrusted[i]!.text || isCutText(item.text));
    const build = (data: unknown) =>
      assemble(input, { data, itemsPointer, originalItems, textCut, nestedCut, untrusted }, redactions);
    const whole = build(shown);
    if (fits(whole)) return whole;
    if (itemsPointer !== null) {
      const count = listLength(shown, itemsPointer);
      const best = largestFitting(0, count - 1, (n) => fits(build(withItemCount(shown, itemsPointer, n))));
      if (best >= 0) return build(withItemCount(shown, itemsPointer, best));
    }
  }
  return fitWithoutData(input);
}

/**
 * The last resort of {@link fitToBudget}, and the whole answer for a result far over its budget: no data, and
 * nothing that is unbounded in size (evidence, conflicts, applied arguments, untrusted text), so the result is
 * `over_byte_budget` and the full data lives only in the artifact. Only an oversized upstream cursor can still be
 * too big; then it goes too.
 */
export function fitWithoutData(input: FitInput): Fitted {
  const itemsPointer = locateItemsList(input.data, input.budget.itemsPointer);
  const originalItems = itemsPointer === null ? null : listLength(input.data, itemsPointer);
  const omitted: Warning[] = input.evidence.length > 0 ? [evidenceOmitted(input.evidence.length)] : [];
  // A presentation speaks of the data, which is not shown here.
  const withoutPresentation: ResultBase = Object.fromEntries(
    Object.entries(input.base).filter(([key]) => key !== 'presentation'),
  ) as ResultBase;
  const bare: FitInput = {
    ...input,
    evidence: [],
    base: {
      ...withoutPresentation,
      conflicts: [],
      applied_arguments: undefined,
      warnings: [...input.base.warnings, ...omitted],
    },
  };
  const shape: Shape = {
    data: null,
    itemsPointer: null,
    originalItems,
    textCut: false,
    nestedCut: false,
    untrusted: [],
    overBudget: true,
  };
  const fallback = assemble(bare, shape, []);
  return fitsBudget(fallback, input.budget.maxBytes, 0)
    ? fallback
    : assemble({ ...bare, pagination: { next: null, availableItems: input.pagination.availableItems } }, shape, []);
}

/**
 * The budget bounds what the model reads: the result as adapters render it (`renderingGrowth` more than its JSON)
 * and as stored. A truncated result gains an artifact reference after fitting, so its room is reserved here.
 */
function fitsBudget(fitted: Fitted, maxBytes: number, renderingGrowth: number): boolean {
  return (
    utf8ByteLength(JSON.stringify(fitted.modelResult)) +
      renderingGrowth +
      (fitted.truncated ? ARTIFACT_REF_RESERVE : 0) <=
    maxBytes
  );
}

/**
 * How many bytes rendering adds to a result holding `untrusted` (never less than none): each text is fenced and
 * escaped (`&`, `<`, `>` grow to 4–5 bytes), which can make it several times its JSON size. Everything else renders
 * to its JSON length (canonical JSON only reorders keys).
 */
function renderingGrowth(untrusted: readonly UntrustedContent[]): number {
  if (untrusted.length === 0) return 0;
  const rendered = utf8ByteLength(JSON.stringify(untrusted.map(renderUntrustedContent)));
  return Math.max(0, rendered - utf8ByteLength(JSON.stringify(untrusted)));
}

/**
 * How many leading items of the list at `pointer`, each cut to `limits`, fit in `bytes` when serialized one by one
 * (at least one). Items are cut and measured one at a time, so a long list costs only the items that are measured.
 */
function itemsWithin(data: unknown, pointer: string, limits: StructuralLimits, bytes: number): number {
  const found = resolvePointer(data, pointer);
  const items = found.found && Array.isArray(found.value) ? (found.value as unknown[]) : [];
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += JSON.stringify(limitStructure(items[i], limits, [])).length + 1;
    if (used > bytes) return i + 1;
  }
  return items.length;
}

function evidenceOmitted(count: number): Warning {
  return { code: 'EVIDENCE_OMITTED', message: `${count} evidence item(s) cited data that was truncated.` };
}

interface Shape {
  readonly data: unknown;
  readonly itemsPointer: string | null;
  readonly originalItems: number | null;
  readonly textCut: boolean;
  readonly nestedCut: boolean;
  readonly untrusted: readonly UntrustedContent[];
  readonly overBudget?: boolean;
}

function assemble(input: FitInput, shape: Shape, redactions: readonly Redaction[]): Fitted {
  const { data, itemsPointer, originalItems } = shape;
  const returned = itemsPointer !== null ? listLength(data, itemsPointer) : data === null ? 0 : 1;
  const itemsCut = originalItems !== null && returned < originalItems;
  const { next: upstreamNext, availableItems } = input.pagination;
  // Our own cut wins: the continuation then points into this call's full result (kept as an artifact).
  const cutNext: Continuation | null = itemsCut ? { type: 'offset', value: returned } : upstreamNext;
  let available =
    availableItems ?? (upstreamNext === null ? (originalItems ?? (shape.overBudget ? null : returned)) : null);
  // A count no larger than what is shown contradicts a continuation: the count is then unknown (null), never 0.
  if (available !== null && (available < returned || (cutNext !== null && available <= returned))) available = null;
  const page = input.paging?.({
    listing: itemsPointer !== null,
    returned,
    itemsCut,
    upstreamNext,
    defaultNext: cutNext,
    available,
  }) ?? { next: cutNext };
  const reasons = [
    shape.overBudget ? 'over_byte_budget' : null,
    itemsCut ? 'item_or_byte_budget' : null,
    shape.nestedCut ? 'nested_item_budget' : null,
    shape.textCut ? 'text_budget' : null,
    upstreamNext !== null || (availableItems !== null && availableItems > (originalItems ?? 1))
      ? 'upstream_pagination'
      : null,
  ].filter((reason): reason is string => reason !== null);
  const completeness: Completeness = {
    state: reasons.length > 0 || page.next !== null ? 'truncated' : 'complete',
    returned_items: returned,
    available_items: available,
    next: page.next,
  };
  if (reasons.length > 0) completeness.reason = reasons.join(',');
  if (page.range !== undefined) completeness.range = page.range;
  if (page.continueWith !== undefined) completeness.continue_with = page.continueWith;
  if (page.notice !== undefined) completeness.notice = page.notice;
  const evidence = evidenceStillSupported(input.evidence, data);
  const warnings: Warning[] = [...input.base.warnings];
  if (evidence.length < input.evidence.length) {
    warnings.push(evidenceOmitted(input.evidence.length - evidence.length));
  }
  const notice = input.redactionWarning;
  if (notice !== undefined && redactions.length > 0 && !warnings.some((warning) => warning.code === notice.code))
    warnings.push(notice);
  const { applied_arguments: appliedArguments, ...base } = input.base;
  const modelResult: ModelResult = {
    ...base,
    status: completeness.state === 'complete' ? 'succeeded' : 'partial',
    data: data as ModelResult['data'],
    completeness,
    evidence: evidence.map((item) => item.evidence),
    untrusted_content: [...shape.untrusted],
    warnings,
    ...(appliedArguments === undefined ? {} : { applied_arguments: appliedArguments }),
  };
  return {
    modelResult,
    truncated: shape.overBudget === true || itemsCut || shape.textCut || shape.nestedCut,
    evidence,
    redactions,
  };
}

function listLength(data: unknown, pointer: string): number {
  const found = resolvePointer(data, pointer);
  return found.found && Array.isArray(found.value) ? found.value.length : 0;
}
