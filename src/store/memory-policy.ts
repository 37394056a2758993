/**
 * Where a memory candidate comes from (seed 000 §17). Only the first three can ever be written as memory on their
 * own; model inferences need a domain policy that allows them; external content is source material only.
 */
export const MEMORY_SOURCE_KINDS = [
  'user_explicit_statement',
  'user_confirmed',
  'confirmed_fact',
  'model_inference',
  'external_content',
] as const;
/** One of {@link MEMORY_SOURCE_KINDS}. */
export type MemorySourceKind = (typeof MEMORY_SOURCE_KINDS)[number];

/** The domain's write policy: `write_allowed = explicit ∨ user_confirmed ∨ (confirmed fact) ∨ policy allows inference`. */
export interface MemoryPolicy {
  readonly allowModelInference: boolean;
  /**
   * Source labels whose evidence a `confirmed_fact` may rest on, besides tools that declare their source
   * `trusted_control`. A fact resting only on other evidence is kept as a candidate until a person confirms it.
   */
  readonly trustedSources?: readonly string[];
}

/** The conservative default: no model inference becomes memory. */
export const DEFAULT_MEMORY_POLICY: MemoryPolicy = Object.freeze({ allowModelInference: false });

/** `accepted`: written as memory; `candidate`: kept as source material awaiting confirmation; `refused`: not stored. */
export type MemoryDecision = 'accepted' | 'candidate' | 'refused';

/** Why a candidate got its decision (stable codes for tests and operators). */
export type MemoryDecisionReason =
  | 'explicit_statement'
  | 'user_confirmed'
  | 'confirmed_by_evidence'
  | 'inference_allowed_by_policy'
  | 'inference_not_allowed'
  | 'external_content_is_source_material'
  | 'fact_without_evidence'
  | 'untrusted_evidence_only';

/** What a proposal cites: how many evidence ids, and how many of them rest on trusted ground (see `MemoryPolicy`). */
export interface CitedCount {
  readonly cited: number;
  readonly trusted: number;
}

/**
 * The SPEC §8 write policy as a pure decision. A `confirmed_fact` must cite evidence (the store also checks that
 * the evidence exists in the same workflow), and is only written when some of it is trusted: a "fact" resting only
 * on untrusted tool output is downgraded to a candidate (seed 000 §17). External content never becomes memory by its
 * own kind.
 */
export function decideMemoryWrite(
  kind: MemorySourceKind,
  evidence: CitedCount,
  policy: MemoryPolicy,
): { decision: MemoryDecision; reason: MemoryDecisionReason } {
  switch (kind) {
    case 'user_explicit_statement':
      return { decision: 'accepted', reason: 'explicit_statement' };
    case 'user_confirmed':
      return { decision: 'accepted', reason: 'user_confirmed' };
    case 'confirmed_fact':
      if (evidence.cited === 0) return { decision: 'refused', reason: 'fact_without_evidence' };
      return evidence.trusted > 0
        ? { decision: 'accepted', reason: 'confirmed_by_evidence' }
        : { decision: 'candidate', reason: 'untrusted_evidence_only' };
    case 'model_inference':
      return policy.allowModelInference
        ? { decision: 'accepted', reason: 'inference_allowed_by_policy' }
        : { decision: 'refused', reason: 'inference_not_allowed' };
    case 'external_content':
      return { decision: 'candidate', reason: 'external_content_is_source_material' };
  }
}
