import { answerSentences, citationsIn, type AnswerSentence, type ClaimMarker } from '../src/contract/answer-claims.js';
import {
  ReturnedValues,
  unsupportedClaims,
  type ClaimedValue,
  type CitedSupport,
} from '../src/contract/claim-support.js';
import type { Evidence } from '../src/contract/model-result.js';
import { unquotedPointers } from '../src/contract/quote-match.js';

/** What the check needs of one tool result: its data and the evidence it returned. */
export interface CitableResult {
  readonly data: unknown;
  readonly evidence: readonly Evidence[];
}

/** A sentence that states a number, a date or an id and cites no evidence. */
export interface UncitedClaim {
  /** The sentence, cut to 200 characters (the report is stored in workflow history). */
  readonly sentence: string;
  readonly carries: readonly ClaimMarker[];
}

/** A sentence that cites evidence, some of whose claims none of the cited evidence shows. */
export interface UnsupportedClaim {
  /** The sentence, cut to 200 characters. */
  readonly sentence: string;
  /** The evidence it cites (known ids only). */
  readonly evidenceIds: readonly string[];
  /** What it states that the cited evidence does not show: its figures, dates, ids and returned values, as written. */
  readonly claims: readonly ClaimedValue[];
}

/** Cited evidence whose quote does not show the values at some of the pointers it supports. */
export interface QuoteMismatch {
  readonly evidenceId: string;
  readonly pointers: readonly string[];
}

/** How a final answer's evidence citations compare with the evidence the run's tool calls actually returned. */
export interface CitationReport {
  /** Cited ids that some tool result of this run returned, in citation order. */
  readonly valid: readonly string[];
  /** Cited ids that no tool result of this run returned (invented, or from another run). */
  readonly unknown: readonly string[];
  /** Returned ids the answer does not cite, in the order they were returned. */
  readonly uncited: readonly string[];
  /** True when evidence was returned but the answer cites none at all. */
  readonly missing: boolean;
  /** Sentences that state a number, date, id or returned value and cite nothing, in answer order. */
  readonly uncitedClaims: readonly UncitedClaim[];
  /** Sentences whose cited evidence does not show what they state ("stock is 17" citing evidence for `/status`). */
  readonly unsupportedClaims: readonly UnsupportedClaim[];
  /** Cited evidence whose quote does not match the values at its pointers (normalised comparison). */
  readonly quoteMismatches: readonly QuoteMismatch[];
  /** Cited evidence supporting the whole result (pointer `''`): it ties no claim to a field. */
  readonly wholeResult: readonly string[];
  /** True when there is no unknown citation, uncited or unsupported claim, mismatched quote or whole-result citation. */
  readonly clean: boolean;
}

const MAX_SENTENCE_CHARS = 200;

/**
 * Checks `answer` against the results of this run's tool calls: which citations are real, which sentences state a
 * figure, date, id or a value the tools returned without citing anything, whether what a citing sentence states is
 * shown by the evidence it cites (at the pointers that evidence supports), and whether the cited evidence holds up
 * (its quote shows the values at its pointers; it does not support the whole result). Pure and deterministic, so
 * workflow code can call it.
 */
export function checkCitations(answer: string, results: readonly CitableResult[]): CitationReport {
  const cited = [...new Set(citationsIn(answer))];
  const returned = results.flatMap((result) => result.evidence.map((evidence) => ({ evidence, data: result.data })));
  const known = new Set(returned.map(({ evidence }) => evidence.evidence_id));
  const citedSet = new Set(cited);
  const valid = cited.filter((id) => known.has(id));
  const unknown = cited.filter((id) => !known.has(id));
  const values = new ReturnedValues(results.map((result) => result.data));
  const sentences = answerSentences(answer).map((sentence) => withReturnedValues(sentence, values));
  const uncitedClaims = sentences
    .filter((sentence) => sentence.citations.length === 0 && sentence.carries.length > 0)
    .map((sentence) => ({ sentence: shortened(sentence.text), carries: sentence.carries }));
  const unsupported = sentences.flatMap((sentence): UnsupportedClaim[] => {
    const evidenceIds = [...new Set(sentence.citations.filter((id) => known.has(id)))];
    if (evidenceIds.length === 0 || sentence.values.length === 0) return [];
    const support: CitedSupport[] = returned
      .filter(({ evidence }) => evidenceIds.includes(evidence.evidence_id))
      .map(({ evidence, data }) => ({ supports: evidence.supports, quote: evidence.quote, data }));
    const claims = unsupportedClaims(sentence.values, support);
    return claims.length === 0 ? [] : [{ sentence: shortened(sentence.text), evidenceIds, claims }];
  });
  const quoteMismatches: QuoteMismatch[] = [];
  const wholeResult: string[] = [];
  for (const id of valid) {
    // Evidence ids are content digests: every result that returned this one must be checked, and it holds if one agrees.
    const copies = returned.filter(({ evidence }) => evidence.evidence_id === id);
    const misses = copies.map(({ evidence, data }) => unquotedPointers(evidence, data));
    if (misses.every((pointers) => pointers.length > 0))
      quoteMismatches.push({ evidenceId: id, pointers: misses[0] ?? [] });
    if (copies.some(({ evidence }) => evidence.supports.includes(''))) wholeResult.push(id);
  }
  return {
    valid,
    unknown,
    uncited: [...known].filter((id) => !citedSet.has(id)),
    missing: cited.length === 0 && known.size > 0,
    uncitedClaims,
    unsupportedClaims: unsupported,
    quoteMismatches,
    wholeResult,
    clean:
      unknown.length === 0 &&
      uncitedClaims.length === 0 &&
      unsupported.length === 0 &&
      quoteMismatches.length === 0 &&
      wholeResult.length === 0,
  };
}

/** A sentence with the values the tools returned that it mentions ("the order shipped") among its claims. */
function withReturnedValues(sentence: AnswerSentence, values: ReturnedValues): AnswerSentence {
  const mentioned = values.mentionedIn(sentence.claimText);
  if (mentioned.length === 0) return sentence;
  return {
    ...sentence,
    carries: [...sentence.carries, 'value'],
    values: [...sentence.values, ...mentioned.map((text) => ({ kind: 'value' as const, text }))],
  };
}

function shortened(text: string): string {
  return Array.from(text).slice(0, MAX_SENTENCE_CHARS).join('');
}
