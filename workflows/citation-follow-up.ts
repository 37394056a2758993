import type { CitationReport } from './citations.js';

/**
 * The message that asks the model once more about an answer whose citations did not hold up: the rule, then each
 * finding. It quotes only the model's own sentences and evidence ids, never tool output, so nothing untrusted is
 * raised into a user turn.
 */
export function citationFollowUp(report: CitationReport): string {
  const findings = [
    ...report.uncitedClaims.map(
      (claim) => `- states a ${claim.carries.join(', ')} without citing evidence: "${claim.sentence}"`,
    ),
    // The claims are the model's own words (a returned value it mentions, as its sentence writes it): never tool text.
    ...report.unsupportedClaims.map(
      (claim) =>
        `- cites ${claim.evidenceIds.join(', ')}, which does not show ${claim.claims.map((value) => `"${value.text}"`).join(', ')}: "${claim.sentence}"`,
    ),
    ...report.unknown.map((id) => `- cites ${id}, which no tool result returned`),
    ...report.quoteMismatches.map(
      (mismatch) =>
        `- cites ${mismatch.evidenceId}, whose quote does not show the values at ${mismatch.pointers.join(', ')}`,
    ),
    ...report.wholeResult.map((id) => `- cites ${id}, which supports a whole result rather than a field`),
  ];
  return [
    'Your answer was not accepted as it stands. Every number, date, identifier or value from a tool result must cite the evidence that supports it, as [ev_…], using only evidence ids the tools returned.',
    'Answer again, citing evidence for each such statement or leaving out what no evidence supports.',
    ...findings,
  ].join('\n');
}
