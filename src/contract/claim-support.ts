import { resolvePointer } from './json-pointer.js';

/**
 * Whether cited evidence supports what a sentence claims (seed 000 §7: every claim maps to the evidence that covers
 * it; seed 004: "引用验证至少确认来源确实包含所述事实"). Pure and deterministic, so workflow code can call it.
 */

/** What makes a sentence a checkable claim: a number, a date, an identifier, or a value the tools returned. */
export type ClaimKind = 'number' | 'date' | 'id' | 'value';

/** One thing a sentence states, as written (trimmed). */
export interface ClaimedValue {
  readonly kind: ClaimKind;
  readonly text: string;
}

/** Most words of a returned value that counts as one (a status, a tier, a product name — not a paragraph). */
const MAX_PHRASE_WORDS = 6;
/** Fewest characters of a returned value that counts as one (`ok`, `no` and `n/a` say nothing checkable). */
const MIN_PHRASE_CHARS = 4;
/** Most string values looked at across the results (a hostile result cannot make the check unbounded). */
const MAX_VALUES = 20_000;

/**
 * A text as comparable words: Unicode NFKC, lower case, every run of letters and every run of digits one word, one
 * space between — so `2026-08-31` is found in `2026-08-31T10:20:00Z`, and `status=shipped` in `{"status":"shipped"}`.
 */
export function phraseKey(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/\p{L}+|\p{N}+/gu) ?? []
  ).join(' ');
}

/**
 * The short string values of the tools' data (`shipped`, `gold`, `Acme Blender 3000`), as phrase keys. A sentence
 * that mentions one states a fact the tools returned, figure or not ("the order shipped"), so it is checked like one.
 */
export class ReturnedValues {
  private readonly phrases = new Set<string>();

  constructor(data: Iterable<unknown>) {
    let seen = 0;
    for (const value of data) {
      for (const text of stringsIn(value)) {
        if (++seen > MAX_VALUES) return;
        const key = phraseKey(text);
        const words = key === '' ? 0 : key.split(' ').length;
        if (words > 0 && words <= MAX_PHRASE_WORDS && key.length >= MIN_PHRASE_CHARS && /\p{L}/u.test(key))
          this.phrases.add(key);
      }
    }
  }

  /** The returned values `sentence` mentions, as whole words; linear in the sentence (word n-grams looked up). */
  mentionedIn(sentence: string): string[] {
    const words = phraseKey(sentence)
      .split(' ')
      .filter((word) => word !== '');
    const found = new Set<string>();
    for (let start = 0; start < words.length; start++) {
      for (let n = 1; n <= MAX_PHRASE_WORDS && start + n <= words.length; n++) {
        const candidate = words.slice(start, start + n).join(' ');
        if (this.phrases.has(candidate)) found.add(candidate);
      }
    }
    return [...found];
  }
}

/** What one cited piece of evidence shows: the values at the pointers it supports, and its quote. */
export interface CitedSupport {
  readonly supports: readonly string[];
  readonly quote?: string | undefined;
  readonly data: unknown;
}

/**
 * The claims none of the cited evidence shows. A claim is shown when a value at one of the pointers an evidence item
 * supports — or its quote — states it: a number by value (`3,500` is 3500), a date or identifier as written, a
 * returned value as whole words. Evidence that supports `/status` does not show "stock is 17".
 */
export function unsupportedClaims(claims: readonly ClaimedValue[], cited: readonly CitedSupport[]): ClaimedValue[] {
  const shown = cited.map(supportedText);
  return claims.filter((claim) => !shown.some((support) => shows(support, claim)));
}

interface SupportedText {
  readonly numbers: ReadonlySet<number>;
  /** Every supported string (and the quote), as phrase keys, each between spaces for whole-word matching. */
  readonly phrases: readonly string[];
}

function supportedText(evidence: CitedSupport): SupportedText {
  const scalars = evidence.supports.flatMap((pointer) => {
    const resolved = resolvePointer(evidence.data, pointer);
    return resolved.found ? [...scalarsIn(resolved.value)] : [];
  });
  const texts = [
    ...scalars.filter((value): value is string => typeof value === 'string'),
    ...(evidence.quote === undefined ? [] : [evidence.quote]),
  ];
  const numbers = new Set<number>([
    ...scalars.filter((value): value is number => typeof value === 'number'),
    ...texts.flatMap(numbersIn),
  ]);
  return { numbers, phrases: texts.map((text) => ` ${phraseKey(text)} `) };
}

function shows(support: SupportedText, claim: ClaimedValue): boolean {
  if (claim.kind === 'number') {
    const value = numbersIn(claim.text)[0];
    return value !== undefined && support.numbers.has(value);
  }
  const key = ` ${phraseKey(claim.text)} `;
  return key.trim() !== '' && support.phrases.some((phrase) => phrase.includes(key));
}

/** Every number written in `text`, with `,` or `_` thousands separators removed. */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(/-?\d+(?:[,_]\d{3})*(?:\.\d+)?/g)]
    .map((match) => Number(match[0].replace(/[,_]/g, '')))
    .filter(Number.isFinite);
}

function* scalarsIn(value: unknown, depth = 0): Generator<unknown> {
  if (value === null || typeof value !== 'object') {
    yield value;
    return;
  }
  if (depth > 64) return;
  for (const member of Array.isArray(value) ? value : Object.values(value as Record<string, unknown>))
    yield* scalarsIn(member, depth + 1);
}

function* stringsIn(value: unknown): Generator<string> {
  for (const scalar of scalarsIn(value)) if (typeof scalar === 'string') yield scalar;
}
