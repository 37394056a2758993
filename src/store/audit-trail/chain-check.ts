import type { KeyObject } from 'node:crypto';
import { anchorDigest, anchorSignatureProblem, GENESIS_ANCHOR_SHA256, type AuditAnchor } from './anchor.js';
import type { TrailFinding } from './trail-findings.js';

/**
 * Checks the chain of anchors (all of them, in number order): numbered 1..n, each digest the digest of its own fields
 * and named by the next, and the transaction ranges contiguous from 0 — the anchors of one range follow each other by
 * month, and a range starts where the previous one ended. A removed, inserted or rewritten
 * anchor breaks the chain at that point; one rewritten together with every later anchor does not, which is what
 * signatures and anchors published outside the database are for ({@link signatureFindings}, {@link publishedFindings}).
 */
export function chainFindings(anchors: readonly AuditAnchor[]): TrailFinding[] {
  const findings: TrailFinding[] = [];
  anchors.forEach((anchor, index) => {
    const previous = index === 0 ? null : anchors[index - 1]!;
    const anchorNo = anchor.anchor_no;
    if (anchorNo !== index + 1) findings.push({ kind: 'anchor_sequence', anchor_no: anchorNo, problem: 'numbering' });
    if (anchorDigest(anchor) !== anchor.anchor_sha256) findings.push({ kind: 'anchor_digest', anchor_no: anchorNo });
    if (anchor.prev_anchor_sha256 !== (previous?.anchor_sha256 ?? GENESIS_ANCHOR_SHA256))
      findings.push({ kind: 'chain_broken', anchor_no: anchorNo });
    if (!followsInRange(previous, anchor))
      findings.push({ kind: 'anchor_sequence', anchor_no: anchorNo, problem: 'range' });
  });
  return findings;
}

function followsInRange(previous: AuditAnchor | null, anchor: AuditAnchor): boolean {
  if (BigInt(anchor.xact_from) >= BigInt(anchor.xact_to)) return false;
  if (previous === null) return anchor.xact_from === '0';
  if (anchor.xact_from === previous.xact_to) return true;
  return (
    anchor.xact_from === previous.xact_from && anchor.xact_to === previous.xact_to && anchor.period > previous.period
  );
}

/** With verifying keys (Ed25519 public keys by id), every anchor must carry a valid signature of one of them. */
export function signatureFindings(
  anchors: readonly AuditAnchor[],
  keys: ReadonlyMap<string, KeyObject>,
): TrailFinding[] {
  return anchors.flatMap((anchor): TrailFinding[] => {
    const problem = anchorSignatureProblem(anchor, keys);
    return problem === null ? [] : [{ kind: 'anchor_signature', anchor_no: anchor.anchor_no, problem }];
  });
}

/**
 * Anchors published outside the database (a file, a log): each must still be there with the same digest. The digest
 * commits to the segment's root and to every earlier anchor, so one published anchor vouches for the whole chain up to
 * it — against an owner who rewrote rows, leaves and anchors together.
 */
export function publishedFindings(anchors: readonly AuditAnchor[], published: readonly AuditAnchor[]): TrailFinding[] {
  const held = new Map(anchors.map((anchor) => [anchor.anchor_no, anchor.anchor_sha256]));
  return published.flatMap((anchor): TrailFinding[] => {
    const digest = held.get(anchor.anchor_no);
    if (digest === anchor.anchor_sha256) return [];
    return [
      { kind: 'published_anchor', anchor_no: anchor.anchor_no, problem: digest === undefined ? 'missing' : 'differs' },
    ];
  });
}
