import type { EvidenceInput } from './tool-handler.js';
import { resolvePointer } from './json-pointer.js';
import type { Evidence } from './model-result.js';
import { digestJson } from './sha256.js';
import { readTime } from './time.js';

/** Evidence as it is built for the model, with the source label kept for allowlist checks and storage. */
export interface BuiltEvidence {
  readonly evidence: Evidence;
  readonly source: string;
}

/**
 * Gives each evidence item a stable id: a digest of what it says (kind, locator, supported pointers, quote,
 * observation time), so the same evidence gets the same id on every retry and answers can cite it.
 */
export function evidenceId(item: Omit<Evidence, 'evidence_id'>): string {
  return `ev_${digestJson(item).slice(0, 16)}`;
}

/** Builds model-visible evidence; throws a reason string for items that are malformed. */
export function buildEvidence(items: readonly EvidenceInput[], defaultSource: string): BuiltEvidence[] {
  return items.map((item, index) => {
    const supports: unknown = item.supports;
    if (
      typeof item.kind !== 'string' ||
      typeof item.locator !== 'string' ||
      !Array.isArray(supports) ||
      supports.length === 0 ||
      !supports.every((pointer): pointer is string => typeof pointer === 'string')
    ) {
      throw new EvidenceError('malformed', `evidence[${index}] needs kind, locator and at least one supported pointer`);
    }
    const body: Omit<Evidence, 'evidence_id'> = { kind: item.kind, locator: item.locator, supports: [...supports] };
    if (item.quote !== undefined) body.quote = String(item.quote);
    if (item.observedAt !== undefined) {
      const observed = readTime(item.observedAt);
      if (!observed.ok) throw new EvidenceError('observedAt', `evidence[${index}].observedAt is ${observed.reason}`);
      body.observed_at = observed.iso;
    }
    return { evidence: { evidence_id: evidenceId(body), ...body }, source: item.source ?? defaultSource };
  });
}

/** Pointers of `evidence` that do not resolve in `data`. */
export function danglingPointers(evidence: readonly Evidence[], data: unknown): string[] {
  return evidence.flatMap((item) => item.supports.filter((pointer) => !resolvePointer(data, pointer).found));
}

/** Evidence whose every supported pointer still resolves (used after truncation removed items). */
export function evidenceStillSupported<T extends { evidence: Evidence }>(items: readonly T[], data: unknown): T[] {
  return items.filter((item) => item.evidence.supports.every((pointer) => resolvePointer(data, pointer).found));
}

/** A malformed evidence declaration from a handler: an item that lacks a part, or a time that is not one. */
export class EvidenceError extends Error {
  override readonly name = 'EvidenceError';

  readonly problem: 'malformed' | 'observedAt';

  constructor(problem: 'malformed' | 'observedAt', message: string) {
    super(message);
    this.problem = problem;
  }
}
