import { claimedValues } from './answer-claims.js';
import { unsupportedClaims } from './claim-support.js';
import type { Presentation } from './model-result.js';
import type { Redaction, Redactor } from './redaction.js';
import { wellFormedPrefix } from './truncation.js';

/**
 * Seed 000's `presentation`: one sentence the model may read or repeat for the result (`model_content`), and whether
 * it may be shown to the user (`user_visible`). The handler writes it; it must say what `data` says — seed 000: "二者必须
 * 表达同一个观测结果" — so every figure, date and identifier in it must be a value of the data, or it is left out
 * (with the warning `PRESENTATION_UNSUPPORTED`). Redacted like any handler text and cut to the tool's text budget.
 */
export interface PresentationInput {
  readonly modelContent: string;
  readonly userVisible: boolean;
}

/** Is `value` a presentation a handler may return (checked at the protocol layer). */
export function isPresentationInput(value: unknown): value is PresentationInput {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { modelContent, userVisible } = value as Record<string, unknown>;
  return (
    typeof modelContent === 'string' &&
    modelContent.trim() !== '' &&
    typeof userVisible === 'boolean' &&
    Object.keys(value).length === 2
  );
}

/** The presentation the model sees, or why it is left out: a claim of its text that `data` does not hold. */
export function shownPresentation(
  input: PresentationInput,
  data: unknown,
  redactor: Redactor,
  log: Redaction[],
  maxTextChars: number,
):
  | { readonly kind: 'shown'; readonly presentation: Presentation }
  | { readonly kind: 'unsupported'; readonly claims: readonly string[] } {
  const unsupported = unsupportedClaims(claimedValues(input.modelContent), [{ supports: [''], data }]);
  if (unsupported.length > 0) return { kind: 'unsupported', claims: unsupported.map((claim) => claim.text) };
  const text = wellFormedPrefix(redactor.text(input.modelContent, '/presentation/model_content', log), maxTextChars);
  return { kind: 'shown', presentation: { model_content: text, user_visible: input.userVisible } };
}
