import type { Warning } from './model-result.js';
import type { Redaction, Redactor } from './redaction.js';
import { wellFormedPrefix } from './truncation.js';

/**
 * What a verification found, for the model to repair the next call with (seed 003: a file edit that runs a syntax
 * check after writing returns the error so the agent can fix it next turn; seed 001: findings are data, never
 * control). Only checks that opt in produce one (`Invariant.visibleReason`): a reason may quote refused data.
 */
export interface VerificationFinding {
  /** The check that found it, as the audit names it (`invariant:<id>@<version>`). */
  readonly rule: string;
  readonly reason: string;
}

/** Warning code under which findings reach the model. */
export const VERIFICATION_FINDING = 'VERIFICATION_FINDING';

/** Longest finding text a model sees. */
const MAX_FINDING_CHARS = 500;

/**
 * Findings as model-visible warnings: redacted like any handler text (a reason can echo a secret or the call's own
 * ids), cut to {@link MAX_FINDING_CHARS} and well-formed.
 */
export function findingWarnings(
  findings: readonly VerificationFinding[],
  redactor: Redactor,
  log: Redaction[],
  firstIndex: number,
): Warning[] {
  return findings.map((finding, i) => ({
    code: VERIFICATION_FINDING,
    message: wellFormedPrefix(
      redactor.text(`${finding.rule}: ${finding.reason}`, `/warnings/${firstIndex + i}/message`, log),
      MAX_FINDING_CHARS,
    ),
  }));
}
