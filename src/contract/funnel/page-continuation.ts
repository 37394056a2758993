import { DEFAULT_CURSOR_TTL_MS, type ToolContinuation } from '../tool-spec.js';
import type { PageFacts, PageView } from '../fit-budget.js';
import type { ContinueWith, Continuation, ItemRange } from '../model-result.js';
import { sealCursor, type CursorPosition } from '../sealed-cursor.js';
import { cursorBinding } from './continuation-input-step.js';
import type { FunnelState } from './funnel-state.js';

type CursorContinuation = Extract<ToolContinuation, { kind: 'cursor' }>;

/**
 * The continuation a model sees, decided for each candidate result while it is fitted to its budget.
 *
 * A tool that declares how it continues gets absolute continuations: for `offset`, the position of the first item
 * not shown (this call's offset plus the items shown, or the handler's own next offset when nothing was cut); for
 * `cursor`, a cursor sealed for this principal, tool and arguments that resumes at the upstream's next page — or, when
 * the budget cut this page, at the same upstream page past the items shown. Either comes with the exact call to make
 * (`continue_with`), the items shown (`range`, counted from 1 across the whole listing) and one sentence for the
 * model (`notice`). A tool without a declaration gets no continuation at all — nothing it could be called with would
 * continue — and, for a listing, a range and a notice that says it cannot be continued.
 */
export function pagingOf(state: FunnelState, upstreamNext: Continuation | null): (facts: PageFacts) => PageView {
  const { continuation } = state.tool;
  const position = state.page?.position ?? 0;
  return (facts) => {
    const range = itemRange(facts, position);
    const shown =
      range === undefined
        ? 'No items shown'
        : `Items ${range.from}–${range.to}${range.of === null ? '' : ` of ${range.of}`} shown`;
    if (continuation === undefined) {
      // No argument takes a position or a cursor, so no `next` could be honoured: a model that followed one would get
      // the same first page again, forever (seed 003: offer only a continuation that works). The result still says
      // it is incomplete (`truncated`, its reason), and a listing says so in words.
      if (facts.defaultNext === null || !facts.listing) return { next: null };
      return {
        next: null,
        range,
        notice: `${shown}. ${state.tool.name} declares no way to continue: narrow the request to see other items.`,
      };
    }
    if (facts.itemsCut && facts.returned === 0) {
      return {
        next: null,
        notice: 'No item of this listing fits the size budget of one result; ask for fewer or smaller items.',
      };
    }
    const next =
      continuation.kind === 'offset'
        ? nextOffset(facts, position, upstreamNext)
        : nextCursor(state, continuation, facts, position, upstreamNext);
    if (next === null) {
      const more =
        facts.itemsCut || upstreamNext !== null || (facts.available !== null && facts.available > facts.returned);
      const notice = more
        ? `${shown}. The rest cannot be continued from here: narrow the request.`
        : `${shown}; this is the end of the listing.`;
      return { next: null, range, notice };
    }
    // The model's own arguments (a JSON object: the input schema is an object schema) with the continuation's.
    const continueWith: ContinueWith = {
      tool: state.tool.name,
      arguments: { ...(state.sentArguments as ContinueWith['arguments']), [continuation.argument]: next.value },
    };
    const how =
      next.type === 'offset' ? `${continuation.argument}=${next.value}` : 'the arguments in completeness.continue_with';
    return { next, continueWith, range, notice: `${shown}. More follow: call ${state.tool.name} with ${how}.` };
  };
}

function itemRange(facts: PageFacts, position: number): ItemRange | undefined {
  if (!facts.listing || facts.returned === 0) return undefined;
  return {
    from: position + 1,
    to: position + facts.returned,
    of: facts.available === null ? null : position + facts.available,
  };
}

function nextOffset(facts: PageFacts, position: number, upstreamNext: Continuation | null): Continuation | null {
  if (facts.itemsCut) return { type: 'offset', value: position + facts.returned };
  if (upstreamNext !== null) return upstreamNext;
  // The handler counted more items than it returned but gave no offset: the next one is right after this page.
  return facts.available !== null && facts.available > facts.returned
    ? { type: 'offset', value: position + facts.returned }
    : null;
}

function nextCursor(
  state: FunnelState,
  continuation: CursorContinuation,
  facts: PageFacts,
  position: number,
  upstreamNext: Continuation | null,
): Continuation | null {
  const key = state.ctx.cursorKey;
  const page = state.page;
  if (key === undefined || page === null) return null;
  let at: CursorPosition | null = null;
  if (facts.itemsCut)
    at = { cursor: page.upstreamCursor, skip: page.skip + facts.returned, position: position + facts.returned };
  else if (upstreamNext !== null && typeof upstreamNext.value === 'string')
    at = { cursor: upstreamNext.value, skip: 0, position: position + facts.returned };
  if (at === null) return null;
  try {
    return {
      type: 'cursor',
      value: sealCursor(
        key,
        cursorBinding(state, continuation),
        at,
        state.startedAt + (continuation.ttlMs ?? DEFAULT_CURSOR_TTL_MS),
      ),
    };
  } catch {
    // Arguments without a canonical form cannot be bound; no continuation is offered rather than an unbound one.
    return null;
  }
}
