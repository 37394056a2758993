import type { Provenance } from '../contract/model-result.js';
import { hasExpired } from '../contract/validity-window.js';
import { checkOptionalTimestamp, checkText } from './input-checks.js';
import type { MemoryPolicy } from './memory-policy.js';
import { StoreError } from './store-error.js';

/**
 * One evidence row a state patch or memory cites, with the provenance of the call that returned it (from that call's
 * model result). An id can be returned by several calls of a workflow (ids are content digests): each is one row.
 */
export interface CitedEvidence {
  readonly evidenceId: string;
  /** The evidence item's source label. */
  readonly source: string;
  /** When the evidence item says its fact was observed. */
  readonly observedAt: string | null;
  readonly call: {
    readonly sourceLabel: string;
    readonly observedAt: string | null;
    readonly retrievedAt: string;
    readonly trust: Provenance['trust'];
    /** Until when the call's result may be relied on (its tool's validity window), `null` without one. */
    readonly validUntil: string | null;
  };
}

/** Refuses ids no row was found for: absent, or another workflow's (one reason for both, as for NOT_FOUND). */
export function assertAllCited(
  workflowId: string,
  evidenceIds: readonly string[],
  cited: readonly CitedEvidence[],
): void {
  const found = new Set(cited.map((row) => row.evidenceId));
  const missing = evidenceIds.filter((id) => !found.has(id));
  if (missing.length > 0) throw new StoreError('evidence_not_found', { workflowId, missing });
}

/**
 * Refuses a state patch resting on a result that may no longer be relied on (issue 27, item 10; seed 000): an id
 * every call that returned it declared valid only until before `nowMs` (`provenance.valid_until`). An id returned by
 * a call without a validity window, or by one still valid, is fine. Checked only when a patch is written, never when
 * an earlier write of it is replayed.
 */
export function assertEvidenceValid(cited: readonly CitedEvidence[], nowMs: number): void {
  const stillValid = new Set(
    cited.filter((row) => !hasExpired(row.call.validUntil, nowMs)).map((row) => row.evidenceId),
  );
  const expired = [...new Set(cited.map((row) => row.evidenceId))].filter((id) => !stillValid.has(id));
  if (expired.length > 0) throw new StoreError('evidence_expired', { expired });
}

/**
 * How many distinct cited ids rest on trusted ground: returned by a call whose tool declared its source
 * `trusted_control`, or from a source label the memory policy trusts.
 */
export function trustedEvidenceCount(cited: readonly CitedEvidence[], policy: MemoryPolicy): number {
  const trustedSources = new Set(policy.trustedSources ?? []);
  const trusted = cited.filter(
    (row) =>
      row.call.trust === 'trusted_control' ||
      trustedSources.has(row.source) ||
      trustedSources.has(row.call.sourceLabel),
  );
  return new Set(trusted.map((row) => row.evidenceId)).size;
}

/** The provenance fields of a state patch as its writer gave them (absent = take them from the evidence). */
export interface PatchProvenanceInput {
  readonly source?: unknown;
  readonly observedAt?: unknown;
  readonly retrievedAt?: unknown;
}

/** A state patch's provenance, checked against (or taken from) the evidence it cites. */
export interface PatchProvenance {
  readonly source: string;
  readonly observedAt: Date | null;
  readonly retrievedAt: Date;
}

/**
 * A patch may only say what its evidence says (SPEC §8): its `source` must be a source label of the cited evidence
 * or of the calls that returned it, `observedAt` one of the times their facts were observed (or `null`: unknown), and
 * `retrievedAt` one of the times those calls read them. Left out, each is taken from the evidence: the one source
 * (several make it ambiguous, and the writer must name one), the earliest observation and the earliest read — a
 * value is as old as the oldest fact it rests on.
 */
export function resolvePatchProvenance(input: PatchProvenanceInput, cited: readonly CitedEvidence[]): PatchProvenance {
  const sources = new Set(cited.flatMap((row) => [row.source, row.call.sourceLabel]));
  const observed = times(cited.flatMap((row) => [row.observedAt, row.call.observedAt]));
  const retrieved = times(cited.map((row) => row.call.retrievedAt));
  const mismatch = (field: string, given: unknown, allowed: readonly unknown[]) =>
    new StoreError('provenance_mismatch', { field, given: String(given), allowed: allowed.map(String) });

  let source: string;
  if (input.source === undefined) {
    const [only, ...others] = [...new Set(cited.map((row) => row.call.sourceLabel))];
    if (only === undefined || others.length > 0) throw mismatch('source', 'none', [...sources].sort());
    source = only;
  } else {
    source = checkText(input.source, 'source');
    if (!sources.has(source)) throw mismatch('source', source, [...sources].sort());
  }

  let observedAt: Date | null;
  if (input.observedAt === undefined) {
    observedAt = observed[0] === undefined ? null : new Date(observed[0]);
  } else {
    observedAt = checkOptionalTimestamp(input.observedAt, 'observedAt');
    if (observedAt !== null && !observed.includes(observedAt.getTime()))
      throw mismatch('observedAt', observedAt.toISOString(), isoTimes(observed));
  }

  let retrievedAt: Date;
  if (input.retrievedAt === undefined) {
    if (retrieved[0] === undefined)
      throw new StoreError('invalid_input', { field: 'retrievedAt', problem: 'required' });
    retrievedAt = new Date(retrieved[0]);
  } else {
    const given = checkOptionalTimestamp(input.retrievedAt, 'retrievedAt');
    if (given === null) throw new StoreError('invalid_input', { field: 'retrievedAt', problem: 'required' });
    if (!retrieved.includes(given.getTime())) throw mismatch('retrievedAt', given.toISOString(), isoTimes(retrieved));
    retrievedAt = given;
  }
  return { source, observedAt, retrievedAt };
}

/** Distinct instants, earliest first. */
function times(values: readonly (string | null)[]): number[] {
  return [...new Set(values.flatMap((value) => (value === null ? [] : [Date.parse(value)])))].sort((a, b) => a - b);
}

function isoTimes(values: readonly number[]): string[] {
  return values.map((value) => new Date(value).toISOString());
}
