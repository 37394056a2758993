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
}

/** A citation is `[ev_…]`: the bracketed id, whatever follows the prefix (a malformed id is still a citation, and unknown). */
const CITATION = /\[(ev_[^\]\s]{1,200})\]/g;

/** Checks `answer`'s citations against `returned` (evidence ids of this run's tool results). Pure and deterministic. */
export function checkCitations(answer: string, returned: readonly string[]): CitationReport {
  const cited = [...new Set([...answer.matchAll(CITATION)].map((match) => match[1] ?? ''))];
  const known = new Set(returned);
  const citedSet = new Set(cited);
  const uniqueReturned = [...known];
  return {
    valid: cited.filter((id) => known.has(id)),
    unknown: cited.filter((id) => !known.has(id)),
    uncited: uniqueReturned.filter((id) => !citedSet.has(id)),
    missing: cited.length === 0 && uniqueReturned.length > 0,
  };
}
