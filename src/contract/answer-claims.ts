import { numbersIn, type ClaimedValue, type ClaimKind } from './claim-support.js';

/** A citation in an answer is `[ev_…]`: the bracketed id, whatever follows the prefix (a malformed id is still one). */
const CITATION_PATTERN = /\[(ev_[^\]\s]{1,200})\]/g;

/**
 * What makes a sentence a checkable claim: it states a number, a date or an identifier — or (found by the citation
 * check, which knows what the tools returned) a value the tools returned (`value`).
 */
export type ClaimMarker = ClaimKind;

/** One sentence of an answer and the evidence ids it cites. */
export interface AnswerSentence {
  /** The sentence as written, citations included (trimmed). */
  readonly text: string;
  /** The sentence without its citations: what is checked against the evidence. */
  readonly claimText: string;
  readonly citations: readonly string[];
  /** What the sentence states that evidence should back, read from its text without the citations. */
  readonly carries: readonly ClaimMarker[];
  /** The numbers, dates and identifiers it states, as written. */
  readonly values: readonly ClaimedValue[];
}

const SENTENCE_BREAK = /(?<=[.!?。！？])\s+|\n+/;
const LEADING_CITATIONS = /^(?:\s*\[ev_[^\]\s]{1,200}\])+/;

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const DATE_PATTERNS = [
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/gi,
  /\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/g,
  new RegExp(`\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?\\b(?:,?\\s+\\d{4})?`, 'gi'),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}(?:\\s+\\d{4})?`, 'gi'),
  /\b\d{1,2}:\d{2}(?::\d{2})?\b/g,
  /\d{4}年\d{1,2}月(?:\d{1,2}日)?/g,
];
/** Letters and digits joined by `_` or `-` (`ord_1001`, `INV-2024-07`), UUIDs, and long hex strings. */
const ID_PATTERNS = [
  /\b(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)+\b/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi,
];
const DIGIT = /\p{Nd}/u;

/**
 * Splits an answer into sentences (at `.`, `!`, `?` and their full-width forms followed by space, and at line
 * breaks; a decimal point is not a break) and notes the citations and claim markers of each. Citations written
 * after a sentence's full stop (`… is 42. [ev_1]`) belong to that sentence. Pure and deterministic (workflow-safe).
 */
export function answerSentences(answer: string): AnswerSentence[] {
  const sentences: { text: string; citations: string[] }[] = [];
  for (const piece of answer.split(SENTENCE_BREAK)) {
    const leading = LEADING_CITATIONS.exec(piece)?.[0] ?? '';
    const previous = sentences.at(-1);
    if (leading !== '' && previous !== undefined) {
      previous.text = `${previous.text} ${leading.trim()}`;
      previous.citations.push(...citationsIn(leading));
    }
    const rest = previous === undefined ? piece : piece.slice(leading.length);
    if (rest.trim() !== '') sentences.push({ text: rest.trim(), citations: citationsIn(rest) });
  }
  return sentences.map((sentence) => {
    const claimText = sentence.text.replace(CITATION_PATTERN, ' ');
    const values = claimedValues(claimText);
    return { ...sentence, claimText, carries: markersOf(values, claimText), values };
  });
}

/** The evidence ids cited in `text`, in order. */
export function citationsIn(text: string): string[] {
  return [...text.matchAll(CITATION_PATTERN)].map((match) => match[1] ?? '');
}

/** Which kinds of checkable fact `text` states: dates, then identifiers, then any other number. */
export function claimMarkers(text: string): ClaimMarker[] {
  return markersOf(claimedValues(text), text);
}

/**
 * The dates, identifiers and numbers `text` states, as written, in that order of precedence: a date's or an
 * identifier's digits are not read again as numbers.
 */
export function claimedValues(text: string): ClaimedValue[] {
  const values: ClaimedValue[] = [];
  let rest = text;
  for (const [kind, patterns] of [
    ['date', DATE_PATTERNS],
    ['id', ID_PATTERNS],
  ] as const) {
    rest = patterns.reduce(
      (current, pattern) =>
        current.replace(pattern, (match) => {
          values.push({ kind, text: match.trim() });
          return ' ';
        }),
      rest,
    );
  }
  for (const match of rest.matchAll(/-?\d+(?:[,_]\d{3})*(?:\.\d+)?/g))
    if (numbersIn(match[0]).length > 0) values.push({ kind: 'number', text: match[0] });
  return values;
}

function markersOf(values: readonly ClaimedValue[], text: string): ClaimMarker[] {
  const markers: ClaimMarker[] = (['date', 'id'] as const).filter((kind) =>
    values.some((value) => value.kind === kind),
  );
  // Any digit outside a date or id is a figure, in any script (a number the pattern above cannot read included).
  const rest = [...DATE_PATTERNS, ...ID_PATTERNS].reduce((current, pattern) => current.replace(pattern, ' '), text);
  if (DIGIT.test(rest)) markers.push('number');
  return markers;
}
